//! The loader: where commands are found, how they are named, what wins, and what a bad
//! file or an untrusted workspace does.

use super::*;

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn source(ws: &Path, user: &Path, trusted: bool) -> Source {
    Source {
        workspace: Some(ws.to_path_buf()),
        user_dirs: vec![user.join("loom"), user.join("claude")],
        trusted,
    }
}

#[test]
fn commands_come_from_all_four_places_with_namespaces() {
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    write(
        &ws.path().join(".loom/commands/review.md"),
        b"---\ndescription: Review it\nargument-hint: [file]\n---\nReview $1",
    );
    write(
        &ws.path().join(".claude/commands/frontend/component.md"),
        b"Make a component named $ARGUMENTS\n",
    );
    write(&user.path().join("loom/mine.md"), b"# Mine\nmine");
    write(&user.path().join("claude/theirs.md"), b"theirs");
    write(&user.path().join("claude/notes.txt"), b"not a command");
    let c = load(&source(ws.path(), user.path(), false));
    let names: Vec<&str> = c.commands.keys().map(String::as_str).collect();
    assert_eq!(names, ["frontend:component", "mine", "review", "theirs"]);
    let review = &c.commands["review"].info;
    assert_eq!(review.description, "Review it");
    assert_eq!(review.argument_hint.as_deref(), Some("[file]"));
    assert_eq!(review.scope, CommandScope::Project);
    assert_eq!(review.file, ".loom/commands/review.md");
    assert_eq!(
        c.commands["frontend:component"].info.description,
        "Make a component named $ARGUMENTS"
    );
    assert_eq!(c.commands["mine"].info.description, "Mine");
    assert_eq!(c.commands["theirs"].info.scope, CommandScope::User);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn project_wins_over_user_and_loom_over_claude_with_a_warning() {
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    write(&ws.path().join(".loom/commands/fix.md"), b"loom project");
    write(
        &ws.path().join(".claude/commands/fix.md"),
        b"claude project",
    );
    write(&user.path().join("loom/fix.md"), b"user");
    let c = load(&source(ws.path(), user.path(), true));
    assert_eq!(c.commands["fix"].body, "loom project");
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(
        c.warnings[0].contains(".claude/commands/fix.md")
            && c.warnings[0].contains("already defined by .loom/commands/fix.md")
    );
}

#[test]
fn bad_files_load_with_warnings_and_never_panic() {
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let dir = ws.path().join(".loom/commands");
    write(&dir.join("unclosed.md"), b"---\ndescription: oops\nDo it");
    write(&dir.join("latin1.md"), b"caf\xe9 $1");
    write(&dir.join("odd.md"), b"---\n: \nfoo\n---\n");
    write(&dir.join("with space.md"), b"x");
    write(
        &dir.join("big.md"),
        &vec![b'a'; MAX_FILE_BYTES as usize + 1],
    );
    let c = load(&source(ws.path(), user.path(), false));
    let names: Vec<&str> = c.commands.keys().map(String::as_str).collect();
    assert_eq!(names, ["latin1", "odd", "unclosed"]);
    assert_eq!(c.commands["unclosed"].body, "---\ndescription: oops\nDo it");
    assert_eq!(c.commands["latin1"].body, "caf\u{fffd} $1");
    assert_eq!(c.commands["odd"].info.description, "(project)");
    let all = c.warnings.join("\n");
    for expected in [
        "unclosed.md: the frontmatter",
        "latin1.md: not UTF-8",
        "odd.md:",
        "with space.md",
        "big.md:",
    ] {
        assert!(all.contains(expected), "{expected} missing from:\n{all}");
    }
}

#[test]
fn a_projects_model_and_tools_apply_only_when_trusted() {
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let text = b"---\nmodel: tiny\nallowed-tools: Read\n---\nRead it";
    write(&ws.path().join(".loom/commands/p.md"), text);
    write(&user.path().join("loom/u.md"), text);
    let untrusted = load(&source(ws.path(), user.path(), false));
    assert_eq!(untrusted.commands["p"].model, None);
    assert_eq!(untrusted.commands["p"].allowed, None);
    assert_eq!(untrusted.commands["p"].body, "Read it");
    assert_eq!(untrusted.warnings.len(), 2, "{:?}", untrusted.warnings);
    assert!(untrusted.warnings[0].contains("trusted workspace"));
    // The person's own commands are theirs: they apply anywhere.
    assert_eq!(untrusted.commands["u"].model.as_deref(), Some("tiny"));
    assert!(
        untrusted.commands["u"]
            .allowed
            .as_ref()
            .unwrap()
            .offers("read_file")
    );
    let trusted = load(&source(ws.path(), user.path(), true));
    assert_eq!(trusted.commands["p"].model.as_deref(), Some("tiny"));
    assert!(
        trusted.commands["p"]
            .allowed
            .as_ref()
            .unwrap()
            .offers("read_file")
    );
    assert!(trusted.warnings.is_empty(), "{:?}", trusted.warnings);
}

#[test]
fn missing_directories_give_an_empty_catalog() {
    let ws = tempfile::tempdir().unwrap();
    let c = load(&source(
        &ws.path().join("nope"),
        &ws.path().join("none"),
        true,
    ));
    assert!(c.commands.is_empty() && c.warnings.is_empty());
}

/// Regression: a repository's command links could hang or flood the loader — a link to
/// `/dev/zero` (its size reads 0, then the read never ends), directory links that loop, a
/// link to a secret elsewhere read in as a prompt. Links count only as regular files inside
/// the commands directory, and no read goes past the size limit.
#[test]
fn links_out_of_the_commands_and_endless_files_are_left_out() {
    use std::os::unix::fs::symlink;
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    let dir = ws.path().join(".loom/commands");
    write(&dir.join("real.md"), b"a real command");
    symlink(dir.join("real.md"), dir.join("alias.md")).unwrap();
    symlink("/dev/zero", dir.join("zero.md")).unwrap();
    let secret = user.path().join("secret.txt");
    write(&secret, b"hunter2");
    symlink(&secret, dir.join("secret.md")).unwrap();
    for name in ["a", "b", "c"] {
        symlink(&dir, dir.join(name)).unwrap();
    }
    let c = load(&source(ws.path(), user.path(), false));
    let names: Vec<&str> = c.commands.keys().map(String::as_str).collect();
    assert_eq!(names, ["alias", "real"], "{:?}", c.warnings);
    let left_out = c.warnings.iter().filter(|w| w.contains("left out")).count();
    assert_eq!(left_out, 2, "{:?}", c.warnings);
}

/// Regression: in an untrusted workspace a repository's command took the name of the
/// person's own (whose narrower `allowed-tools` then no longer applied); there the
/// person's command wins, and the repository's is named in a warning.
#[test]
fn in_an_untrusted_workspace_the_persons_own_command_wins() {
    let ws = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    write(&ws.path().join(".claude/commands/review.md"), b"the repo's");
    write(&user.path().join("loom/review.md"), b"mine");
    let c = load(&source(ws.path(), user.path(), false));
    assert_eq!(c.commands["review"].body, "mine");
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains(".claude/commands/review.md")),
        "{:?}",
        c.warnings
    );
}

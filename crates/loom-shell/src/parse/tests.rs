use super::*;

fn argv(script: &Script, i: usize) -> Vec<String> {
    script.commands[i]
        .words
        .iter()
        .map(|w| w.text.clone())
        .collect()
}

#[test]
fn quotes_and_escapes_are_removed() {
    let s = parse(r#"\rm -rf 'a b' "c\"d" r""m 'r'm $'x\ty'"#).unwrap();
    assert_eq!(
        argv(&s, 0),
        vec!["rm", "-rf", "a b", "c\"d", "rm", "rm", "x\ty"]
    );
}

#[test]
fn lists_pipelines_and_substitutions() {
    let s = parse("a && b || c; d | e\nf $(g h) `i`").unwrap();
    let names: Vec<String> = s.commands.iter().map(|c| c.words[0].text.clone()).collect();
    assert!(
        names.contains(&"g".to_string()) && names.contains(&"i".to_string()),
        "{names:?}"
    );
    assert_eq!(s.pipelines.len(), 1);
    let f = s.commands.iter().find(|c| c.words[0].text == "f").unwrap();
    assert!(f.words[1].dynamic);
    assert_eq!(f.words[1].inner.len(), 1);
}

#[test]
fn assignments_and_redirects() {
    let s = parse("FOO=1 BAR=2 make > out.log 2>&1").unwrap();
    let c = &s.commands[0];
    let names: Vec<&str> = c.assignments.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["FOO", "BAR"]);
    assert_eq!(c.words[0].text, "make");
    let writes: Vec<&str> = c
        .redirects
        .iter()
        .filter(|r| r.writes())
        .map(|r| r.target.text.as_str())
        .collect();
    assert_eq!(writes, vec!["out.log"]);
}

/// The parser drops a lone `-` before a redirect; the walker puts it back.
#[test]
fn a_dash_before_a_redirect_is_a_word() {
    for (src, words) in [
        ("cat - <<EOF\nx\nEOF", vec!["cat", "-"]),
        ("make -f - <<'EOF'\nall:\nEOF", vec!["make", "-f", "-"]),
        ("rm - 2>/dev/null", vec!["rm", "-"]),
        ("cat -n <<EOF\nx\nEOF", vec!["cat", "-n"]),
        ("x - - <<EOF\nx\nEOF", vec!["x", "-", "-"]),
    ] {
        let s = parse(src).unwrap();
        let got: Vec<&str> = s.commands[0]
            .words
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(got, words, "{src:?}");
    }
}

#[test]
fn heredoc_into_a_file() {
    let s = parse("cat > notes.txt <<EOF\nhello\nEOF\n").unwrap();
    let c = &s.commands[0];
    assert!(
        c.redirects
            .iter()
            .any(|r| r.writes() && r.target.text == "notes.txt"),
        "{c:?}"
    );
}

#[test]
fn subshell_redirect_and_functions() {
    let s = parse("(cd x && make) > log").unwrap();
    assert!(
        s.commands
            .iter()
            .any(|c| c.redirects.iter().any(|r| r.writes()))
    );
    let s = parse(":(){ :|:& };:").unwrap();
    assert_eq!(s.functions.len(), 1);
    assert_eq!(s.functions[0].0, ":");
}

#[test]
fn dynamic_words() {
    let s = parse("$CMD -rf \"$HOME/x\"").unwrap();
    assert!(s.commands[0].words[0].dynamic);
    assert!(s.commands[0].words[2].dynamic);
}

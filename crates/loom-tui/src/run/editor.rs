//! `Ctrl+G`: the message in the person's editor. The event loop leaves the screen (the
//! alternate screen and raw mode), runs `$VISUAL` (else `$EDITOR`) on a temporary file
//! holding the message, comes back and takes the file's text as the message. An editor
//! that is missing, fails or leaves something unreadable changes nothing: the message stays
//! as it was, and a notice says why.

use std::io::Write;
use std::process::Command;

/// Why the message could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// Neither variable is set.
    #[error("set $VISUAL or $EDITOR to write the message in your editor; the message is unchanged")]
    NoEditor,
    /// The temporary file could not be written or read back.
    #[error("the message's temporary file: {0}; the message is unchanged")]
    File(#[from] std::io::Error),
    /// The editor could not be started.
    #[error("the editor `{editor}` could not be started ({source}); the message is unchanged")]
    Start {
        /// The editor's command.
        editor: String,
        /// Why.
        source: std::io::Error,
    },
    /// The editor ended with a failure.
    #[error("the editor `{editor}` failed ({status}); the message is unchanged")]
    Failed {
        /// The editor's command.
        editor: String,
        /// How it ended.
        status: std::process::ExitStatus,
    },
    /// The file is not text.
    #[error("the edited message is not UTF-8 text; the message is unchanged")]
    NotText,
}

/// The editor the person chose: `$VISUAL`, else `$EDITOR` (empty values skipped).
pub fn chosen(env: impl Fn(&str) -> Option<String>) -> Option<String> {
    ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(env)
        .map(|e| e.trim().to_string())
        .find(|e| !e.is_empty())
}

/// Run `editor` on a file holding `text` and give back what it holds afterwards (one final
/// newline, which editors add, taken off). The terminal must already be given to it.
pub fn edit(editor: &str, text: &str) -> Result<String, EditError> {
    let mut file = tempfile::Builder::new()
        .prefix("loom-message-")
        .suffix(".md")
        .tempfile()?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    // Through the shell, as git runs it: `code --wait` and `vim -u NONE` work.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(editor)
        .arg(file.path())
        .status()
        .map_err(|source| EditError::Start {
            editor: editor.to_string(),
            source,
        })?;
    if !status.success() {
        return Err(EditError::Failed {
            editor: editor.to_string(),
            status,
        });
    }
    let bytes = std::fs::read(file.path())?;
    let edited = String::from_utf8(bytes).map_err(|_| EditError::NotText)?;
    let edited = edited.strip_suffix('\n').unwrap_or(&edited);
    Ok(edited.strip_suffix('\r').unwrap_or(edited).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &std::path::Path, body: &str) -> String {
        let path = dir.join("ed.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&path)
            .status()
            .unwrap();
        path.display().to_string()
    }

    #[test]
    fn visual_wins_over_editor_and_empty_ones_are_skipped() {
        let env = |v: &[(&str, &str)]| {
            let v: Vec<(String, String)> = v
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            chosen(move |k| v.iter().find(|(n, _)| n == k).map(|(_, x)| x.clone()))
        };
        assert_eq!(
            env(&[("VISUAL", "vi"), ("EDITOR", "nano")]).as_deref(),
            Some("vi")
        );
        assert_eq!(
            env(&[("VISUAL", " "), ("EDITOR", "nano")]).as_deref(),
            Some("nano")
        );
        assert_eq!(env(&[]), None);
    }

    #[test]
    fn the_edited_file_becomes_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let ed = script(dir.path(), "printf 'edited\\nsecond line\\n' > \"$1\"");
        assert_eq!(edit(&ed, "draft").unwrap(), "edited\nsecond line");
        let keep = script(dir.path(), "true");
        assert_eq!(edit(&keep, "as it was\n").unwrap(), "as it was");
    }

    #[test]
    fn a_failing_or_missing_editor_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let fails = script(dir.path(), "exit 3");
        let e = edit(&fails, "x").unwrap_err().to_string();
        assert!(e.contains("failed") && e.contains("unchanged"), "{e}");
        let e = edit("/no/such/editor", "x").unwrap_err().to_string();
        assert!(e.contains("failed") && e.contains("unchanged"), "{e}");
        let binary = script(dir.path(), "printf '\\377' > \"$1\"");
        assert!(matches!(edit(&binary, "x"), Err(EditError::NotText)));
    }
}

//! What the person attaches to their next message: the output of a `!command`, a file or
//! a directory listing named with `@`. Each is shown as a chip in the message box's title
//! until the message is sent (Backspace in an empty box drops the last one); sending
//! appends them to the message as tagged blocks the model reads and the chat shows again as
//! chips, so a 2,000-line file does not fill the conversation pane.

/// Where an attachment's block starts in a sent message.
const OPEN: &str = "\n\n<attachment name=\"";
/// Where it ends.
const CLOSE: &str = "\n</attachment>";

/// One attached text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// What it is, as the chip shows it (`@src/main.rs`, `!cargo test`, `@src/`).
    pub name: String,
    /// Its content, already bounded.
    pub text: String,
}

impl Attachment {
    /// The chip: its name and size ("@src/main.rs · 40 lines").
    pub fn chip(&self) -> String {
        chip(&self.name, self.text.lines().count())
    }
}

fn chip(name: &str, lines: usize) -> String {
    format!("{name} · {lines} line{}", if lines == 1 { "" } else { "s" })
}

/// The message as sent: the text, then each attachment as a tagged block.
pub fn compose(message: &str, attachments: &[Attachment]) -> String {
    let mut out = message.to_string();
    for a in attachments {
        let name = a.name.replace('"', "'").replace('\n', " ");
        out.push_str(OPEN);
        out.push_str(&name);
        out.push_str("\">\n");
        out.push_str(a.text.trim_end_matches('\n'));
        out.push_str(CLOSE);
    }
    out
}

/// A sent message split back into its text and the chips of its attachments (what the chat
/// shows). Text without attachment blocks comes back whole with no chips.
pub fn split(sent: &str) -> (&str, Vec<String>) {
    let Some(start) = sent.find(OPEN) else {
        return (sent, Vec::new());
    };
    let mut chips = Vec::new();
    let mut rest = &sent[start..];
    while let Some(after) = rest.strip_prefix(OPEN) {
        let Some((name, body)) = after.split_once("\">\n") else {
            return (sent, Vec::new());
        };
        let Some(end) = body.find(CLOSE) else {
            return (sent, Vec::new());
        };
        chips.push(chip(name, body[..end].lines().count()));
        rest = &body[end + CLOSE.len()..];
    }
    if !rest.is_empty() {
        // Something follows that is no attachment: show the message as it is.
        return (sent, Vec::new());
    }
    (&sent[..start], chips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_composed_message_splits_back_into_its_text_and_chips() {
        let sent = compose(
            "look at this",
            &[
                Attachment {
                    name: "@src/a.rs".into(),
                    text: "fn a() {}\nfn b() {}\n".into(),
                },
                Attachment {
                    name: "!ls".into(),
                    text: "x".into(),
                },
            ],
        );
        assert!(
            sent.contains("<attachment name=\"@src/a.rs\">\nfn a() {}\nfn b() {}\n</attachment>")
        );
        let (text, chips) = split(&sent);
        assert_eq!(text, "look at this");
        assert_eq!(chips, ["@src/a.rs · 2 lines", "!ls · 1 line"]);
    }

    #[test]
    fn text_that_merely_looks_like_an_attachment_is_shown_whole() {
        let typed = "see <attachment name=\"x\">\nhi";
        assert_eq!(split(typed), (typed, Vec::new()));
        let unterminated = "a\n\n<attachment name=\"x\">\nno end";
        assert_eq!(split(unterminated), (unterminated, Vec::new()));
    }
}

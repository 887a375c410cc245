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

/// A sent message taken apart: its typed text, its attachments, and the images named after
/// them (`[image: NAME]` lines, which a message with images carries at its end); `None`
/// when what follows the text is not exactly that.
fn parse(sent: &str) -> Option<(&str, Vec<Attachment>, Vec<&str>)> {
    let start = sent.find(OPEN)?;
    let mut attachments = Vec::new();
    let mut rest = &sent[start..];
    while let Some(after) = rest.strip_prefix(OPEN) {
        let (name, body) = after.split_once("\">\n")?;
        let end = body.find(CLOSE)?;
        attachments.push(Attachment {
            name: name.to_string(),
            text: body[..end].to_string(),
        });
        rest = &body[end + CLOSE.len()..];
    }
    // The chips of images attached with it (see `llm::image::with_chips`).
    let images: Option<Vec<&str>> = rest
        .split_terminator('\n')
        .skip(1)
        .map(|l| l.strip_prefix("[image: ")?.strip_suffix(']'))
        .collect();
    let images = if rest.is_empty() {
        Vec::new()
    } else if rest.starts_with('\n') {
        images?
    } else {
        return None;
    };
    Some((&sent[..start], attachments, images))
}

/// A sent message split back into its text and the chips of its attachments and images
/// (what the chat shows). Text without attachment blocks comes back whole with no chips.
pub fn split(sent: &str) -> (&str, Vec<String>) {
    match parse(sent) {
        Some((text, attachments, images)) => (
            text,
            attachments
                .iter()
                .map(Attachment::chip)
                .chain(images.iter().map(|i| format!("[image: {i}]")))
                .collect(),
        ),
        // Something follows that is no attachment: show the message as it is.
        None => (sent, Vec::new()),
    }
}

/// A message that was not sent (a queue an interruption gave back) as the message box
/// takes it: its typed text, and its attachments as chips again, never their tagged blocks
/// in the box (where anything typed after them made the whole file show in the chat).
pub fn take_back(sent: &str) -> (String, Vec<Attachment>) {
    let sent = sent
        .rsplit_once("\n[image: ")
        .filter(|(_, tail)| tail.ends_with(']') && !tail.contains('\n'))
        .map_or(sent, |(head, _)| head);
    match parse(sent) {
        Some((text, attachments, _)) => (text.to_string(), attachments),
        None => (sent.to_string(), Vec::new()),
    }
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

    /// Regression (issue 25): a message with an `@file` (or `!command`) attachment and an
    /// image showed in the chat whole, tags and numbered lines: the image's line after the
    /// blocks made it "something that is no attachment".
    #[test]
    fn a_message_with_attachments_and_images_shows_chips_only() {
        let sent = compose(
            "look",
            &[Attachment {
                name: "@src/a.rs".into(),
                text: "     1\tfn a() {}\n".into(),
            }],
        );
        let with_image = format!("{sent}\n[image: shot.png]");
        let (text, chips) = split(&with_image);
        assert_eq!(text, "look");
        assert_eq!(chips, ["@src/a.rs · 1 line", "[image: shot.png]"]);
    }

    /// A queue given back to the message box comes back as its text and its chips.
    #[test]
    fn a_message_given_back_keeps_its_attachments_as_attachments() {
        let a = Attachment {
            name: "!cargo test".into(),
            text: "$ cargo test\nok".into(),
        };
        let sent = compose("why does it pass?", std::slice::from_ref(&a));
        assert_eq!(take_back(&sent), ("why does it pass?".to_string(), vec![a]));
        let plain = take_back("just text\n[image: x.png]");
        assert_eq!(plain, ("just text".to_string(), Vec::new()));
    }

    #[test]
    fn text_that_merely_looks_like_an_attachment_is_shown_whole() {
        let typed = "see <attachment name=\"x\">\nhi";
        assert_eq!(split(typed), (typed, Vec::new()));
        let unterminated = "a\n\n<attachment name=\"x\">\nno end";
        assert_eq!(split(unterminated), (unterminated, Vec::new()));
    }
}

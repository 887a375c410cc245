//! What goes with the message being written, besides its text (which the [`Composer`]
//! edits): the attachment chips and images sent with it, and the state of its completions
//! (the workspace's paths for `@` mentions, listed off the UI thread, and the slash popup's
//! highlighted line). Sending the message takes the chips and images; a turn that ended
//! before its message was sent gives them back.
//!
//! [`Composer`]: super::composer::Composer

use super::attachments::Attachment;
use super::composer::Composer;
use crate::protocol::image::Image;

/// The message box's attachments and completion state.
#[derive(Default)]
pub struct Draft {
    /// Images attached to the next message (pasted image paths, `--image`).
    pub images: Vec<Image>,
    /// What goes with the next message (`!command` output, `@file` content), shown as chips.
    pub attachments: Vec<Attachment>,
    /// The workspace, for `@` mentions (none: mentions are off).
    pub workspace_root: Option<std::path::PathBuf>,
    /// The workspace's paths, listed at the first `@` mention.
    pub(crate) files: Option<Vec<String>>,
    /// A listing being made off the UI thread (a big workspace takes a while to walk).
    pub(crate) files_pending: Option<std::sync::mpsc::Receiver<Vec<String>>>,
    /// The highlighted line of the slash popup.
    pub(crate) popup_selected: usize,
    /// The custom slash commands the agent listed.
    pub(crate) custom: super::custom_list::CustomSlash,
    /// `/commands` asked for the list: show it when it comes.
    pub(crate) custom_listing: bool,
    /// The reverse search of earlier prompts (`Ctrl+R`), while it is open.
    pub(crate) search: Option<super::history_search::HistorySearch>,
}

impl Draft {
    /// Take what goes with the message being sent.
    pub fn take(&mut self) -> (Vec<Attachment>, Vec<Image>) {
        (
            std::mem::take(&mut self.attachments),
            std::mem::take(&mut self.images),
        )
    }

    /// Drop what was attached (another session is shown).
    pub fn clear(&mut self) {
        self.attachments.clear();
        self.images.clear();
    }

    /// An attachment the agent made (an `@` mention read), or why it could not.
    pub fn on_attachment(
        &mut self,
        name: String,
        result: Result<String, String>,
    ) -> Result<(), String> {
        match result {
            Ok(text) => {
                self.attachments.push(Attachment { name, text });
                Ok(())
            }
            Err(e) => Err(format!("cannot attach {name}: {e}")),
        }
    }

    /// A turn ended before its messages were sent: their text goes back in the box (after
    /// what is typed there), their attachments and images come back as chips, to go with
    /// the text when it is sent.
    pub fn give_back(&mut self, unsent: &[String], images: Vec<Image>, composer: &mut Composer) {
        if !unsent.is_empty() {
            let mut texts = Vec::new();
            for sent in unsent {
                let (text, attachments) = super::attachments::take_back(sent);
                texts.push(text);
                self.attachments.extend(attachments);
            }
            let mut text = texts.join("\n\n");
            if !composer.is_empty() {
                text = format!("{}\n\n{text}", composer.text());
            }
            composer.set_text(&text);
        }
        self.images.extend(images);
    }

    /// Whether the workspace is still being listed (frames are needed to pick it up).
    pub fn listing(&self) -> bool {
        self.files_pending.is_some()
    }
}

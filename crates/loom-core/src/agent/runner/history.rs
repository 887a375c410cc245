//! Prompts of earlier sessions for the composer's reverse search (`Ctrl+R`): read off the
//! runner's task from the session files, newest first, this workspace's before the rest.

use super::{Internal, Runner};
use crate::agent::events::AgentEvent;
use crate::llm::Message;
use crate::protocol::custom_command::PastPrompt;

/// The most session files read.
const MAX_SESSIONS: usize = 200;
/// The most prompts sent.
pub const MAX_PROMPTS: usize = 5000;

impl Runner {
    /// Read the earlier prompts and answer with [`AgentEvent::PromptHistory`].
    pub(super) fn prompt_history(&mut self) {
        let workspace = self
            .work
            .ctx
            .workspace
            .as_deref()
            .map(|c| c.root().display().to_string());
        let tx = self.internal_tx.clone();
        tokio::task::spawn_blocking(move || {
            let prompts = crate::session::sessions_dir()
                .map(|dir| past_prompts(&dir, workspace.as_deref()))
                .unwrap_or_default();
            let _ = tx.send(Internal::Applied(AgentEvent::PromptHistory { prompts }));
        });
    }
}

/// The prompts of the sessions in `dir`, newest first, those of `workspace` first; each
/// text once, without the attachments appended to it.
pub fn past_prompts(dir: &std::path::Path, workspace: Option<&str>) -> Vec<PastPrompt> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| {
            let t = e.metadata().and_then(|m| m.modified());
            (t.unwrap_or(std::time::UNIX_EPOCH), e.path())
        })
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    let (mut here, mut elsewhere) = (Vec::new(), Vec::new());
    for (_, path) in files.into_iter().take(MAX_SESSIONS) {
        let Ok(session) = crate::session::load(&path) else {
            continue;
        };
        let is_here = Some(session.workspace.as_str()) == workspace;
        let out = if is_here { &mut here } else { &mut elsewhere };
        for m in session.conversation.iter().rev() {
            if let Message::User { content, .. } = m {
                let text = content
                    .split("\n\n<attachment name=\"")
                    .next()
                    .unwrap_or("")
                    .trim_end();
                if !text.trim().is_empty() && !text.starts_with("[Loom]") {
                    out.push(PastPrompt {
                        text: text.to_string(),
                        here: is_here,
                    });
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    here.into_iter()
        .chain(elsewhere)
        .filter(|p| seen.insert(p.text.clone()))
        .take(MAX_PROMPTS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Record;

    fn session(dir: &std::path::Path, id: &str, workspace: &str, prompts: &[&str]) {
        let mut lines = vec![Record::Session {
            id: id.into(),
            started_at: "2026-11-27T10:00:00Z".into(),
            workspace: workspace.into(),
            model: "m".into(),
            title: None,
        }];
        for p in prompts {
            lines.push(Record::Message {
                message: Message::user(*p),
            });
            lines.push(Record::Message {
                message: Message::Assistant {
                    content: "ok".into(),
                    tool_calls: Vec::new(),
                },
            });
        }
        let text: String = lines
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }

    /// This workspace's prompts come first, newest first; then the others'; each once,
    /// without attachments, Loom's own notes left out.
    #[test]
    fn this_workspaces_prompts_come_first() {
        let dir = tempfile::tempdir().unwrap();
        session(dir.path(), "a", "/elsewhere", &["other one", "shared"]);
        session(
            dir.path(),
            "b",
            "/here",
            &[
                "first here",
                "with a file\n\n<attachment name=\"@a.rs\">\nfn a() {}\n</attachment>",
                "[Loom] The user undid your changes",
                "shared",
            ],
        );
        let got: Vec<(String, bool)> = past_prompts(dir.path(), Some("/here"))
            .into_iter()
            .map(|p| (p.text, p.here))
            .collect();
        let want = [
            ("shared", true),
            ("with a file", true),
            ("first here", true),
            ("other one", false),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(t, h)| (t.to_string(), *h)).collect();
        assert_eq!(got, want);
    }
}

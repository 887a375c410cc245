//! `Ctrl+R` in the message box: an incremental reverse search of earlier prompts, as in a
//! shell. Each key narrows the prompts that contain what is typed (case-insensitive unless
//! it holds a capital), the newest first: this session's, then this workspace's earlier
//! sessions, then every other workspace's (the agent reads those from the session files,
//! [`UserOp::PromptHistory`]). The best match stands in the message box as it is found and
//! the matches are listed in the popup above it. As in readline: `Ctrl+R` again goes to the
//! next older match, `Enter` sends the match, `Esc` (or any editing key) ends the search
//! leaving the match to edit, `Ctrl+G` or `Ctrl+C` gives up and puts back what was typed.
//! This file is the search itself; its keys are in `input/search.rs`, its popup lines in
//! `slash_popup.rs`.

use crate::protocol::custom_command::PastPrompt;

/// An open reverse search.
#[derive(Debug, Clone, Default)]
pub struct HistorySearch {
    /// What is searched for.
    pub query: String,
    /// Every prompt searched, newest first, each once.
    candidates: Vec<PastPrompt>,
    /// Which match is chosen (0: the newest).
    pub selected: usize,
    /// The message box's text before the search, put back when it is given up.
    pub original: String,
}

impl HistorySearch {
    /// A search over this session's prompts (`session`, oldest first), with `original` in
    /// the box.
    pub fn new(session: &[String], original: String) -> HistorySearch {
        let mut search = HistorySearch {
            original,
            ..HistorySearch::default()
        };
        search.add(session.iter().rev().map(|text| PastPrompt {
            text: text.clone(),
            here: true,
        }));
        search
    }

    /// Add older prompts (earlier sessions'), after those there are; each text once.
    pub fn add(&mut self, prompts: impl IntoIterator<Item = PastPrompt>) {
        for p in prompts {
            if !self.candidates.iter().any(|c| c.text == p.text) {
                self.candidates.push(p);
            }
        }
    }

    /// The prompts that contain the query, newest first.
    pub fn matches(&self) -> Vec<&PastPrompt> {
        let fold = !self.query.chars().any(char::is_uppercase);
        let query = if fold {
            self.query.to_lowercase()
        } else {
            self.query.clone()
        };
        self.candidates
            .iter()
            .filter(|c| {
                if fold {
                    c.text.to_lowercase().contains(&query)
                } else {
                    c.text.contains(&query)
                }
            })
            .collect()
    }

    /// The chosen match's text, if anything matches.
    pub fn current(&self) -> Option<String> {
        let all = self.matches();
        all.get(self.selected.min(all.len().checked_sub(1)?))
            .map(|p| p.text.clone())
    }

    /// The popup's title.
    pub fn title(&self) -> String {
        format!(
            "reverse search: {}▏ · Ctrl+R older · Enter sends · Esc edits · Ctrl+G gives up",
            self.query
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(text: &str, here: bool) -> PastPrompt {
        PastPrompt {
            text: text.into(),
            here,
        }
    }

    #[test]
    fn this_sessions_prompts_come_first_then_older_ones_each_once() {
        let mut s = HistorySearch::new(
            &["fix the test".into(), "run cargo test".into()],
            String::new(),
        );
        s.add([
            prompt("fix the test", true),
            prompt("test elsewhere", false),
        ]);
        s.query = "test".into();
        let texts: Vec<&str> = s.matches().iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["run cargo test", "fix the test", "test elsewhere"]);
        s.selected = 2;
        assert_eq!(s.current().as_deref(), Some("test elsewhere"));
    }

    #[test]
    fn lower_case_queries_ignore_case_and_capitals_do_not() {
        let s = |q: &str| {
            let mut s =
                HistorySearch::new(&["Deploy now".into(), "deploy later".into()], String::new());
            s.query = q.into();
            s.matches().len()
        };
        assert_eq!(s("deploy"), 2);
        assert_eq!(s("Deploy"), 1);
        assert_eq!(s("nothing"), 0);
    }
}

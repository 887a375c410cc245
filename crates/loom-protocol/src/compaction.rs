//! What compacting the conversation did, as the agent reports it to the person.

/// What compaction did, for the person.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Estimated tokens before.
    pub before_tokens: u64,
    /// Estimated tokens after.
    pub after_tokens: u64,
    /// Tool results cut to head and tail.
    pub trimmed_results: usize,
    /// Earlier tool calls whose long arguments (a written file's content) were cut.
    pub trimmed_calls: usize,
    /// Older messages replaced by the summary.
    pub summarized_messages: usize,
    /// Why no summary could be made (the older part was dropped instead), if so.
    pub summary_failed: Option<String>,
}

impl Report {
    /// Whether the conversation changed (cut or summarised), not only was measured.
    pub fn changed(&self) -> bool {
        self.trimmed_results > 0 || self.trimmed_calls > 0 || self.summarized_messages > 0
    }

    /// One line for the person: "compacted the conversation: ~9.1k → ~2.3k tokens (2 tool
    /// results cut, 14 older messages summarised)".
    pub fn describe(&self) -> String {
        if !self.changed() {
            return format!(
                "nothing to compact: the conversation already fits (about {} tokens)",
                self.before_tokens
            );
        }
        let k = |n: u64| {
            if n >= 1000 {
                format!("~{:.1}k", n as f64 / 1000.0)
            } else {
                format!("~{n}")
            }
        };
        let mut what = Vec::new();
        if self.trimmed_results > 0 {
            what.push(format!("{} tool result(s) cut", self.trimmed_results));
        }
        if self.trimmed_calls > 0 {
            what.push(format!(
                "{} earlier tool call(s) shortened",
                self.trimmed_calls
            ));
        }
        if self.summarized_messages > 0 {
            what.push(match &self.summary_failed {
                None => format!("{} older messages summarised", self.summarized_messages),
                Some(why) => format!(
                    "{} older messages left out, as no summary could be made: {why}",
                    self.summarized_messages
                ),
            });
        }
        format!(
            "compacted the conversation to fit the model's context: {} → {} tokens ({})",
            k(self.before_tokens),
            k(self.after_tokens),
            what.join(", ")
        )
    }
}

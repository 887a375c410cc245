//! Compaction: making a conversation fit the model's context window again.
//!
//! A 20 KB file read at `llama-server -c 4096` once ended the task with a 400. Now, before
//! a request would leave the answer less than its room ([`Budget::is_full`]), or when the
//! server says the prompt does not fit, the agent compacts, aiming at a share of the space
//! the fixed prefix leaves ([`super::budget`]): first every oversized tool result is cut to its head and tail,
//! and every earlier call's oversized arguments (a written file's content) in the middle
//! (often enough, and free); if the conversation is still too long, the turns before the
//! recent ones are summarised by the model (task, decisions, files, open items) and
//! replaced by that summary. The recent turns stay verbatim, the last user message always
//! stays, and a tool call is never separated from its result (the split falls on a user
//! message). The session file keeps the full history; only what is sent shrinks.

use tokio_util::sync::CancellationToken;

use crate::llm::{ChatRequest, LlmClient, Message};

use super::budget::chars;
pub use super::budget::{Budget, TARGET_PERCENT};
use crate::protocol::compaction::Report;

/// Share of the conversation's budget the recent, verbatim part may take.
const RECENT_PERCENT: usize = 50;

/// The smallest a tool result is cut to (characters).
const MIN_RESULT_CHARS: usize = 800;

/// The most characters of older conversation sent to be summarised.
const MAX_SUMMARY_INPUT_CHARS: usize = 200_000;

/// What the model is asked when it summarises.
const SUMMARY_INSTRUCTIONS: &str = "You are compacting the earlier part of a coding session so \
that it can continue within a limited context window. Summarise the conversation below for the \
assistant who will continue it. Keep, under these headings: Task (what the person wants, in \
their words where it matters), Decisions (what was decided and why), Files (each file read or \
changed, with what matters about it), Open items (what is left to do, errors not yet solved). \
Be specific: names, paths, commands, error messages. At most 400 words. No preamble.";

/// A compacted conversation and what was done.
#[derive(Debug, Clone)]
pub struct Compacted {
    /// The conversation to continue with.
    pub conversation: Vec<Message>,
    /// What was done.
    pub report: Report,
}

/// Cut every tool result longer than `max_chars` to its head and tail, saying so. Returns
/// how many were cut.
pub fn trim_results(conversation: &mut [Message], max_chars: usize) -> usize {
    let max_chars = max_chars.max(MIN_RESULT_CHARS);
    let mut trimmed = 0;
    for m in conversation.iter_mut() {
        if let Message::Tool { content, .. } = m
            && content.len() > max_chars
        {
            let cut = trim_result(content, max_chars);
            if cut.len() < content.len() {
                *content = cut;
                trimmed += 1;
            }
        }
    }
    trimmed
}

/// Cut the long string values in the arguments of every tool call longer than `max_chars`
/// (a written file's whole content, a long patch) in the middle, saying so in the cut.
/// The file is on disk and its call's result says what happened, so the model keeps what
/// it decided; without this, one large write could outgrow a small window by itself,
/// whatever else gave way. Every call in the conversation has its result by then
/// (compaction runs between requests). Returns how many calls were shortened.
pub fn trim_calls(conversation: &mut [Message], max_chars: usize) -> usize {
    let max_chars = max_chars.max(MIN_RESULT_CHARS);
    let mut trimmed = 0;
    for m in conversation.iter_mut() {
        let Message::Assistant { tool_calls, .. } = m else {
            continue;
        };
        for call in tool_calls
            .iter_mut()
            .filter(|c| c.arguments.len() > max_chars)
        {
            // Arguments that are not JSON were refused when made; they stay as they are.
            let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&call.arguments) else {
                continue;
            };
            for _ in 0..8 {
                let size = value.to_string().len();
                if size <= max_chars || !cut_longest_string(&mut value, size - max_chars) {
                    break;
                }
            }
            let shorter = value.to_string();
            if shorter.len() < call.arguments.len() {
                call.arguments = shorter;
                trimmed += 1;
            }
        }
    }
    trimmed
}

/// One tool result cut to about `max_chars`. Results are JSON the model reads, so they stay
/// JSON: the longest strings in them are cut in the middle, and a `compacted` field says
/// what happened. Anything else is cut as text.
fn trim_result(content: &str, max_chars: usize) -> String {
    let note = format!(
        "this result was cut from {} characters to fit the context window; run the tool \
         again for the part you need",
        content.len()
    );
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(content) else {
        let (cut, _) = crate::base::text::cut_middle(content, max_chars);
        return format!("{cut}\n[loom: {note}]");
    };
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("compacted".into(), note.clone().into());
    }
    for _ in 0..8 {
        let size = value.to_string().len();
        if size <= max_chars {
            break;
        }
        let excess = size - max_chars;
        if cut_longest_string(&mut value, excess) {
            continue;
        }
        // Many short strings (a long listing): the longest array loses its middle.
        if !cut_longest_array(&mut value, excess) {
            break;
        }
    }
    let text = value.to_string();
    if text.len() > max_chars.saturating_mul(2) {
        // Nothing in the structure could give way enough: cut the text itself.
        let (cut, _) = crate::base::text::cut_middle(content, max_chars);
        return format!("{cut}\n[loom: {note}]");
    }
    text
}

/// Cut the longest string in `value` in the middle to save about `excess` characters
/// (keeping at least 200); false when it is too short to give way.
fn cut_longest_string(value: &mut serde_json::Value, excess: usize) -> bool {
    let Some(longest) = longest_string(value) else {
        return false;
    };
    // (The cut leaves a marker of its own in the middle: a little more goes.)
    let keep = longest.len().saturating_sub(excess + 64).max(200);
    if keep >= longest.len() {
        return false;
    }
    *longest = crate::base::text::cut_middle(longest, keep).0;
    true
}

/// Cut items from the middle of the longest array in `value` to save about `excess`
/// characters, saying how many were left out. False when no array has more than 2 items.
fn cut_longest_array(value: &mut serde_json::Value, excess: usize) -> bool {
    let mut best: Option<(usize, String)> = None;
    longest_array(value, String::new(), &mut best);
    let Some(items) = best
        .and_then(|(_, path)| value.pointer_mut(&path))
        .and_then(serde_json::Value::as_array_mut)
    else {
        return false;
    };
    let n = items.len();
    let per_item = (serde_json::Value::Array(items.clone()).to_string().len() / n).max(1);
    let drop = (excess / per_item + 1).clamp(1, n - 2);
    let keep_head = (n - drop).div_ceil(2);
    let tail: Vec<serde_json::Value> = items.split_off(keep_head + drop);
    items.truncate(keep_head);
    items.push(serde_json::Value::String(format!(
        "[loom: {drop} items left out here to fit the context window]"
    )));
    items.extend(tail);
    true
}

/// The JSON pointer of the longest array (of more than 2 items) under `value`.
fn longest_array(value: &serde_json::Value, path: String, best: &mut Option<(usize, String)>) {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            if items.len() > 2 && best.as_ref().is_none_or(|(n, _)| items.len() > *n) {
                *best = Some((items.len(), path.clone()));
            }
            for (i, item) in items.iter().enumerate() {
                longest_array(item, format!("{path}/{i}"), best);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let key = k.replace('~', "~0").replace('/', "~1");
                longest_array(v, format!("{path}/{key}"), best);
            }
        }
        _ => {}
    }
}

/// The longest string anywhere in `value`.
fn longest_string(value: &mut serde_json::Value) -> Option<&mut String> {
    use serde_json::Value;
    match value {
        Value::String(s) => Some(s),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string)
            .max_by_key(|s| s.len()),
        Value::Object(map) => map
            .iter_mut()
            .filter(|(k, _)| k.as_str() != "compacted")
            .filter_map(|(_, v)| longest_string(v))
            .max_by_key(|s| s.len()),
        _ => None,
    }
}

/// Where the verbatim recent part starts: a user message (so no tool call is separated from
/// its result), at the latest the last one, and as early as fits in `max_chars`.
pub fn split_point(conversation: &[Message], max_chars: usize) -> usize {
    let users: Vec<usize> = conversation
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::User { .. }))
        .map(|(i, _)| i)
        .collect();
    let Some(&last) = users.last() else {
        return 0;
    };
    users
        .iter()
        .copied()
        .find(|&i| chars(&conversation[i..]) <= max_chars)
        .unwrap_or(last)
        .min(last)
}

/// The older part as text for the summariser, at most `max_chars` (cut in the middle).
pub fn render(older: &[Message], max_chars: usize) -> String {
    let mut out = String::new();
    for m in older {
        match m {
            Message::System { .. } => {}
            Message::User { content, images } => {
                out.push_str(&format!("\n## Person\n{content}\n"));
                for i in images {
                    out.push_str(&format!("[image attached: {}]\n", i.name));
                }
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                if !content.is_empty() {
                    out.push_str(&format!("\n## Assistant\n{content}\n"));
                }
                for c in tool_calls {
                    out.push_str(&format!("\n## Tool call {}\n{}\n", c.name, c.arguments));
                }
            }
            Message::Tool { name, content, .. } => {
                let (cut, _) = crate::base::text::cut_middle(content, 4_000);
                out.push_str(&format!("\n## Result of {name}\n{cut}\n"));
            }
        }
    }
    crate::base::text::cut_middle(&out, max_chars).0
}

/// The conversation after compaction: the summary (as the person's message, answered, so
/// roles alternate as strict chat templates require), then the recent part verbatim.
pub fn rebuild(summary: &str, recent: Vec<Message>) -> Vec<Message> {
    let mut out = vec![
        Message::user(format!(
            "[loom] The earlier part of this conversation was compacted to fit the model's \
             context window. Summary of it:\n\n{}",
            summary.trim()
        )),
        Message::Assistant {
            content: "Understood. I continue from this summary.".into(),
            tool_calls: Vec::new(),
        },
    ];
    out.extend(recent);
    out
}

/// Compact `conversation` to fit `budget`, asking `client` for the summary when cutting
/// tool results is not enough.
pub async fn compact(
    mut conversation: Vec<Message>,
    budget: Budget,
    client: Option<&LlmClient>,
    cancel: &CancellationToken,
) -> Result<Compacted, String> {
    let before_tokens = budget.tokens(&conversation);
    let Some(room) = budget.conversation_chars() else {
        return Err(format!(
            "the system prompt and tool definitions alone need about {} of the model's {} \
             tokens; start the server with a larger context (llama-server -c, Ollama num_ctx) \
             or set context_window if Loom has it wrong",
            budget.prefix_tokens(),
            budget.window
        ));
    };
    let mut report = Report {
        before_tokens,
        ..Report::default()
    };
    if chars(&conversation) <= room {
        // Already small enough (a `/compact` with room to spare): nothing to do.
        report.after_tokens = before_tokens;
        return Ok(Compacted {
            conversation,
            report,
        });
    }
    report.trimmed_results = trim_results(&mut conversation, room / 4);
    report.trimmed_calls = trim_calls(&mut conversation, room / 4);
    if chars(&conversation) > room {
        let split = split_point(&conversation, room * RECENT_PERCENT / 100);
        if split > 0 {
            let recent = conversation.split_off(split);
            let older = conversation;
            report.summarized_messages = older.len();
            let summary = match client {
                Some(client) => summarize(client, &older, room, cancel).await,
                None => Err("no model to ask".to_string()),
            };
            let summary = summary.unwrap_or_else(|why| {
                report.summary_failed = Some(why.clone());
                format!(
                    "(No summary: {why}. {} earlier messages were left out; ask the person \
                     if something from before is needed.)",
                    older.len()
                )
            });
            conversation = rebuild(&summary, recent);
        }
    }
    if chars(&conversation) > room {
        // The current task alone is too long (one request, many rounds of tool calls): its
        // older rounds are summarised too, the request and the recent rounds kept.
        let older = summarize_rounds(&mut conversation, room, client, cancel).await;
        if let Some((count, failed)) = older {
            report.summarized_messages += count;
            if report.summary_failed.is_none() {
                report.summary_failed = failed;
            }
        }
    }
    if chars(&conversation) > room {
        // The recent part alone is too long: its tool results give way further.
        report.trimmed_results += trim_results(&mut conversation, room / 8);
        report.trimmed_calls += trim_calls(&mut conversation, room / 8);
    }
    report.after_tokens = budget.tokens(&conversation);
    if report.after_tokens >= before_tokens && !report.changed() {
        return Err(format!(
            "nothing could be compacted: the last request alone needs about {} tokens of the \
             model's {}; start the server with a larger context, or ask for less at once",
            before_tokens, budget.window
        ));
    }
    Ok(Compacted {
        conversation,
        report,
    })
}

/// Where the rounds of the last request start (each an assistant message with the tool
/// results that answer it), after the last user message.
fn rounds_of_last_turn(conversation: &[Message]) -> Vec<usize> {
    let Some(user) = conversation
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
    else {
        return Vec::new();
    };
    (user + 1..conversation.len())
        .filter(|&i| matches!(conversation[i], Message::Assistant { .. }))
        .collect()
}

/// Summarise the older rounds of the last request in place: they are replaced by a
/// summary at the head of the first round kept (an assistant message, so roles and every
/// call's result stay as they were). Returns how many messages were summarised and why
/// no summary could be made, if so; `None` when the request has too few rounds.
async fn summarize_rounds(
    conversation: &mut Vec<Message>,
    room: usize,
    client: Option<&LlmClient>,
    cancel: &CancellationToken,
) -> Option<(usize, Option<String>)> {
    let rounds = rounds_of_last_turn(conversation);
    if rounds.len() < 2 {
        return None;
    }
    let recent_room = room * RECENT_PERCENT / 100;
    let keep = rounds
        .iter()
        .copied()
        .skip(1)
        .find(|&i| chars(&conversation[i..]) <= recent_room)
        .unwrap_or(rounds[rounds.len() - 1]);
    let older: Vec<Message> = conversation.drain(rounds[0]..keep).collect();
    let summary = match client {
        Some(client) => summarize(client, &older, room, cancel).await,
        None => Err("no model to ask".to_string()),
    };
    let (summary, failed) = match summary {
        Ok(text) => (text.trim().to_string(), None),
        Err(why) => (
            format!(
                "(No summary: {why}. {} messages of earlier steps were left out; read files \
                 again if you need them.)",
                older.len()
            ),
            Some(why),
        ),
    };
    if let Some(Message::Assistant { content, .. }) = conversation.get_mut(rounds[0]) {
        let mine = std::mem::take(content);
        *content = format!(
            "[loom] My earlier steps on this request were compacted to fit the model's \
             context window. Summary of them:\n\n{summary}\n\n{mine}"
        )
        .trim_end()
        .to_string();
    }
    Some((older.len(), failed))
}

/// Ask the model for a summary of `older` (no tools, its own small request).
async fn summarize(
    client: &LlmClient,
    older: &[Message],
    room: usize,
    cancel: &CancellationToken,
) -> Result<String, String> {
    let text = render(older, room.min(MAX_SUMMARY_INPUT_CHARS));
    let messages = [
        Message::System {
            content: SUMMARY_INSTRUCTIONS.into(),
        },
        Message::user(text),
    ];
    let request = ChatRequest {
        messages: &messages,
        tools: &[],
    };
    let out = client
        .stream(request, cancel, &mut |_| {})
        .await
        .map_err(|f| f.error.to_string())?;
    if out.text.trim().is_empty() {
        return Err("the model gave an empty summary".into());
    }
    Ok(out.text)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::llm::ToolCall;
    use crate::llm::message::check_tool_answers;

    /// A call's long string arguments are cut in the middle and stay JSON with every key;
    /// short calls and arguments that are not JSON are left as they are.
    #[test]
    fn long_call_arguments_are_cut_and_stay_json() {
        let call = |id: &str, arguments: String| ToolCall {
            id: id.into(),
            name: "write_file".into(),
            arguments,
        };
        let long = serde_json::json!({"path": "gen.rs", "content": "x".repeat(50_000)});
        let broken = format!("{{\"path\": \"b.rs\", {}", "y".repeat(5000));
        let mut conversation = vec![Message::Assistant {
            content: String::new(),
            tool_calls: vec![
                call("big", long.to_string()),
                call(
                    "small",
                    r#"{"path": "a.rs", "content": "fn a() {}"}"#.into(),
                ),
                call("broken", broken.clone()),
            ],
        }];
        assert_eq!(trim_calls(&mut conversation, 2000), 1);
        let Message::Assistant { tool_calls, .. } = &conversation[0] else {
            unreachable!()
        };
        let cut: serde_json::Value = serde_json::from_str(&tool_calls[0].arguments).unwrap();
        assert_eq!(cut["path"], "gen.rs");
        assert!(
            tool_calls[0].arguments.len() <= 2000,
            "{}",
            tool_calls[0].arguments.len()
        );
        assert!(
            cut["content"].as_str().unwrap().contains("omitted"),
            "{cut}"
        );
        assert_eq!(
            tool_calls[1].arguments,
            r#"{"path": "a.rs", "content": "fn a() {}"}"#
        );
        assert_eq!(tool_calls[2].arguments, broken);
    }

    fn turn(i: usize, calls: usize, result_len: usize) -> Vec<Message> {
        let mut out = vec![Message::user(format!("request {i}"))];
        let tool_calls: Vec<ToolCall> = (0..calls)
            .map(|k| ToolCall {
                id: format!("c{i}_{k}"),
                name: "read_file".into(),
                arguments: "{\"path\": \"a\"}".into(),
            })
            .collect();
        if !tool_calls.is_empty() {
            out.push(Message::Assistant {
                content: String::new(),
                tool_calls: tool_calls.clone(),
            });
            for c in &tool_calls {
                out.push(Message::Tool {
                    tool_call_id: c.id.clone(),
                    name: c.name.clone(),
                    content: "x".repeat(result_len),
                });
            }
        }
        out.push(Message::Assistant {
            content: format!("answer {i}"),
            tool_calls: Vec::new(),
        });
        out
    }

    /// One request answered after `rounds` rounds of one call each, each result `len` long.
    fn long_turn(i: usize, rounds: usize, len: usize) -> Vec<Message> {
        let mut out = vec![Message::user(format!("request {i}"))];
        for r in 0..rounds {
            let id = format!("c{i}_r{r}");
            out.push(Message::Assistant {
                content: format!("step {r}"),
                tool_calls: vec![ToolCall {
                    id: id.clone(),
                    name: "read_file".into(),
                    arguments: format!("{{\"path\": \"f{r}\"}}"),
                }],
            });
            out.push(Message::Tool {
                tool_call_id: id,
                name: "read_file".into(),
                content: "x".repeat(len),
            });
        }
        out.push(Message::Assistant {
            content: format!("answer {i}"),
            tool_calls: Vec::new(),
        });
        out
    }

    fn last_user(conversation: &[Message]) -> Option<&str> {
        conversation.iter().rev().find_map(|m| match m {
            Message::User { content, .. } => Some(content.as_str()),
            _ => None,
        })
    }

    #[test]
    fn a_big_tool_result_is_cut_to_head_and_tail_and_says_so() {
        let mut c = turn(0, 1, 20_000);
        assert_eq!(trim_results(&mut c, 2_000), 1);
        let Message::Tool { content, .. } = &c[2] else {
            panic!()
        };
        assert!(content.len() < 2_500, "{}", content.len());
        assert!(content.contains("cut from 20000"));

        let result = serde_json::json!({"success": true, "output": "y".repeat(30_000)});
        let cut = trim_result(&result.to_string(), 2_000);
        let parsed: serde_json::Value = serde_json::from_str(&cut).expect("still JSON");
        assert_eq!(parsed["success"], true);
        assert!(parsed["compacted"].as_str().unwrap().contains("cut from"));
        assert!(cut.len() <= 2_300, "{}", cut.len());
    }

    /// Review finding: a listing of many short entries was never shrunk (no string long
    /// enough to cut), yet counted as trimmed.
    #[test]
    fn a_listing_of_short_entries_is_cut_in_its_middle() {
        let entries: Vec<serde_json::Value> = (0..1000)
            .map(|i| serde_json::json!({"path": format!("src/file_{i}.rs"), "size": i}))
            .collect();
        let result = serde_json::json!({"success": true, "output": "1000 entries",
                                        "data": {"entries": entries}});
        let text = result.to_string();
        let cut = trim_result(&text, 4_000);
        assert!(cut.len() <= 4_400, "{}", cut.len());
        let parsed: serde_json::Value = serde_json::from_str(&cut).expect("still JSON");
        let kept = parsed["data"]["entries"].as_array().unwrap();
        assert!(kept[0]["path"] == "src/file_0.rs");
        assert!(kept.last().unwrap()["path"] == "src/file_999.rs");
        assert!(
            kept.iter()
                .any(|e| e.as_str().is_some_and(|s| s.contains("items left out")))
        );
        let mut c = vec![Message::Tool {
            tool_call_id: "c".into(),
            name: "list_files".into(),
            content: "[1,2]".into(),
        }];
        assert_eq!(
            trim_results(&mut c, 1),
            0,
            "what cannot shrink is not counted"
        );
    }

    #[test]
    fn a_conversation_that_already_fits_is_left_alone() {
        let budget = Budget {
            window: 100_000,
            chars_per_token: 4.0,
            overhead_chars: 1_000,
            prefix_chars_per_token: 4.0,
        };
        let c = turn(0, 1, 500);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let out = rt
            .block_on(compact(c.clone(), budget, None, &CancellationToken::new()))
            .unwrap();
        assert_eq!(out.conversation, c);
        assert_eq!(
            out.report.trimmed_results + out.report.summarized_messages,
            0
        );
    }

    #[test]
    fn the_split_falls_on_a_user_message_and_keeps_the_last_one() {
        let c: Vec<Message> = (0..5).flat_map(|i| turn(i, 2, 100)).collect();
        let at = split_point(&c, 0);
        assert!(matches!(&c[at], Message::User { content, .. } if content == "request 4"));
        let all = split_point(&c, usize::MAX);
        assert_eq!(all, 0);
    }

    /// Regression (issue 12): a 20 KB file read at `-c 4096` ended the task; cutting the
    /// result alone makes it fit, without asking the model for a summary.
    #[tokio::test]
    async fn a_big_read_in_a_small_window_fits_after_cutting_the_result() {
        let budget = Budget {
            window: 4096,
            chars_per_token: 3.5,
            overhead_chars: 3_000,
            prefix_chars_per_token: 3.5,
        };
        let c = turn(0, 1, 20_000);
        assert!(budget.is_full(&c));
        let out = compact(c, budget, None, &CancellationToken::new())
            .await
            .unwrap();
        assert!(!budget.is_full(&out.conversation));
        assert_eq!(out.report.trimmed_results, 1);
        assert_eq!(out.report.summarized_messages, 0);
        assert!(check_tool_answers(&out.conversation).is_ok());
    }

    /// A single request that ran many rounds of tools outgrows the window on its own: its
    /// older rounds are summarised into the first round kept, the request stays verbatim.
    #[tokio::test]
    async fn the_older_rounds_of_one_long_request_are_summarised() {
        let budget = Budget {
            window: 8_000,
            chars_per_token: 4.0,
            overhead_chars: 2_000,
            prefix_chars_per_token: 4.0,
        };
        let c = long_turn(0, 40, 1_500);
        assert!(budget.is_full(&c));
        let out = compact(c, budget, None, &CancellationToken::new())
            .await
            .unwrap();
        assert!(!budget.is_full(&out.conversation), "{:?}", out.report);
        assert!(out.report.summarized_messages > 0, "{:?}", out.report);
        assert!(
            matches!(&out.conversation[0], Message::User { content, .. } if content == "request 0")
        );
        let Message::Assistant {
            content,
            tool_calls,
        } = &out.conversation[1]
        else {
            panic!("{:?}", out.conversation[1])
        };
        assert!(
            content.contains("compacted") && content.contains("left out"),
            "{content}"
        );
        assert_eq!(tool_calls.len(), 1, "the first round kept keeps its call");
        assert!(check_tool_answers(&out.conversation).is_ok());
        let last = out.conversation.last().unwrap();
        assert!(matches!(last, Message::Assistant { content, .. } if content == "answer 0"));
    }

    #[tokio::test]
    async fn overhead_that_fills_the_window_is_explained() {
        let budget = Budget {
            window: 1000,
            chars_per_token: 4.0,
            overhead_chars: 10_000,
            prefix_chars_per_token: 4.0,
        };
        let err = compact(turn(0, 0, 0), budget, None, &CancellationToken::new())
            .await
            .unwrap_err();
        assert!(err.contains("larger context"), "{err}");
    }

    proptest! {
        // Invariants of compaction, whatever the conversation and the budget (no model:
        // the older part is replaced by a note): the last user message survives verbatim,
        // every tool call keeps exactly its result, and no two messages of one role follow
        // each other (tool results aside), also where a long request's rounds were
        // summarised.
        #[test]
        fn compaction_keeps_the_last_user_message_and_every_call_with_its_result(
            turns in proptest::collection::vec((0usize..4, 0usize..30_000, 0usize..12), 1..8),
            window in 1_000u64..40_000,
        ) {
            let c: Vec<Message> = turns
                .iter()
                .enumerate()
                .flat_map(|(i, (calls, len, rounds))| {
                    if *rounds > 1 {
                        long_turn(i, *rounds, *len / 4)
                    } else {
                        turn(i, *calls, *len)
                    }
                })
                .collect();
            let last = last_user(&c).map(str::to_string);
            let budget = Budget { window, chars_per_token: 4.0, overhead_chars: 500, prefix_chars_per_token: 4.0 };
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            if let Ok(out) = rt.block_on(compact(c, budget, None, &CancellationToken::new())) {
                prop_assert_eq!(last_user(&out.conversation).map(str::to_string), last);
                prop_assert!(check_tool_answers(&out.conversation).is_ok());
                // Roles never repeat (a strict chat template's rule), but for tool results.
                for pair in out.conversation.windows(2) {
                    let same = std::mem::discriminant(&pair[0]) == std::mem::discriminant(&pair[1]);
                    prop_assert!(!same || matches!(pair[0], Message::Tool { .. }), "{:?}", pair);
                }
            }
        }
    }
}

//! The one output budget: how much of a tool result the model reads.
//!
//! A result reaches the model as the JSON of its `success`, `output`, `data`,
//! `files_changed` and `error` ([`ToolResult::to_model_json`]). Every part of it counts:
//! bounding only `output` let an MCP server's `structuredContent` (kept in `data`) put
//! 320,655 characters into the context under an 8 KiB budget, and a command's streams
//! (also in `data`) could pass the budget twice over. So [`fit`] bounds the whole result:
//! the parts that fit are kept whole, and the rest share what is left equally (small parts
//! first, so a short summary never loses to a long stream). Text is cut in the middle with a
//! marker saying what was left out; structured data keeps its shape, its long strings cut in
//! the middle and its long lists and maps shortened with a marker, and is replaced by a note
//! only when even its skeleton does not fit.
//!
//! The registry fits every result it returns, so events, the screen and `loom exec --json`
//! carry what the model reads; [`model_json`] fits once more where a result becomes the
//! model's message, after the runner has added its notes. Sizes are measured as escaped
//! JSON, the form the model receives.

use serde_json::{Map, Value};

use super::ToolResult;
use crate::base::text::cut_middle;

/// The smallest budget honoured: below it a result could not say what it left out.
pub const MIN_BUDGET: usize = 512;

/// Files named in the model's copy of `files_changed`; the rest are counted.
const MAX_FILES_NAMED: usize = 50;

/// Bytes kept free for the JSON keys of `data` and `error` (`,"error":`, `,"data":`).
const KEY_ROOM: usize = 10;

/// The JSON text the model reads for `result`: at most `budget` bytes (at least
/// [`MIN_BUDGET`]).
pub fn model_json(result: &ToolResult, budget: usize) -> String {
    let budget = budget.max(MIN_BUDGET);
    let mut view = result.clone();
    view.files_changed = files_for_model(&result.files_changed, budget / 4);
    let json = serialise(&view);
    if json.len() <= budget {
        return json;
    }
    fit(&mut view, budget);
    let json = serialise(&view);
    if json.len() <= budget {
        return json;
    }
    // Only files and data so unusual that even their shortened forms fill the budget reach
    // here: the model is told what happened in words, within the budget.
    let mut bare = ToolResult {
        success: view.success,
        output: view.output,
        data: None,
        files_changed: Vec::new(),
        error: view.error,
        images: Vec::new(),
    };
    fit(&mut bare, budget);
    serialise(&bare)
}

/// Fit `result`'s `output`, `error` and `data` into `budget` bytes of model JSON (at least
/// [`MIN_BUDGET`]). `files_changed` is left whole (the undo journal and the hooks read it)
/// but counts at the size the model sees it.
pub fn fit(result: &mut ToolResult, budget: usize) {
    let budget = budget.max(MIN_BUDGET);
    let fixed = {
        let frame = ToolResult {
            success: result.success,
            output: String::new(),
            data: None,
            files_changed: files_for_model(&result.files_changed, budget / 4),
            error: None,
            images: Vec::new(),
        };
        serialise(&frame).len()
    };
    let sizes = [
        escaped_len(&result.output),
        result
            .error
            .as_deref()
            .map_or(0, |e| escaped_len(e) + KEY_ROOM),
        result
            .data
            .as_ref()
            .map_or(0, |d| serialised_len(d) + KEY_ROOM),
    ];
    let room = budget.saturating_sub(fixed);
    if sizes.iter().sum::<usize>() <= room {
        return;
    }
    let [out_room, err_room, data_room] = share(sizes, room);
    if sizes[0] > out_room {
        result.output = fit_text(&result.output, out_room);
    }
    if let Some(error) = &result.error
        && sizes[1] > err_room
    {
        result.error = Some(fit_text(error, err_room.saturating_sub(KEY_ROOM)));
    }
    if let Some(data) = &result.data
        && sizes[2] > data_room
    {
        result.data = fit_value(data, data_room.saturating_sub(KEY_ROOM));
    }
}

/// Split `room` among parts of these sizes: a part that fits its equal share keeps its
/// size, and what it leaves goes to the others (max-min fairness).
fn share(sizes: [usize; 3], room: usize) -> [usize; 3] {
    let mut out = [0; 3];
    let mut order: Vec<usize> = (0..3).filter(|&i| sizes[i] > 0).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut left = room;
    let mut parts = order.len();
    for i in order {
        let equal = left / parts.max(1);
        out[i] = sizes[i].min(equal);
        left -= out[i];
        parts -= 1;
    }
    out
}

/// `text` cut in the middle so that its escaped JSON takes at most `room` bytes.
fn fit_text(text: &str, room: usize) -> String {
    if escaped_len(text) <= room {
        return text.to_string();
    }
    // The marker takes about 50 bytes; escapes can make the cut text longer than its bytes,
    // so the cut shrinks until it fits.
    let mut raw = room.saturating_sub(64);
    loop {
        let (cut, _) = cut_middle(text, raw);
        let len = escaped_len(&cut);
        if len <= room {
            return cut;
        }
        if raw == 0 {
            return omitted_note(text.len(), room);
        }
        raw = (raw * room / len).min(raw - 1);
    }
}

/// The shortest honest stand-in for text that does not fit at all.
fn omitted_note(bytes: usize, room: usize) -> String {
    let note = format!("[… {bytes} bytes omitted …]");
    if escaped_len(&note) <= room {
        note
    } else {
        String::new()
    }
}

/// `data` shortened to at most `room` bytes of JSON, keeping its shape where possible; a
/// note in its place when even its skeleton is too long; nothing when the note is too.
fn fit_value(data: &Value, room: usize) -> Option<Value> {
    let whole = serialised_len(data);
    if whole <= room {
        return Some(data.clone());
    }
    let fits = |strings: usize, items: usize| {
        let v = shorten(data, strings, items);
        (serialised_len(&v) <= room).then_some(v)
    };
    // The longest strings first: the largest cap that fits (binary search, as the size
    // grows with the cap).
    const MIN_STRING: usize = 64;
    let longest = longest_string(data);
    if let Some(v) = fits(MIN_STRING, usize::MAX) {
        return Some(largest_fit(MIN_STRING, longest, v, |cap| {
            fits(cap, usize::MAX)
        }));
    }
    // Then lists and maps, with their strings at the shortest.
    let widest = widest_collection(data);
    if let Some(v) = fits(MIN_STRING, 1) {
        return Some(largest_fit(1, widest, v, |cap| fits(MIN_STRING, cap)));
    }
    let note = Value::String(format!(
        "[structured data of {whole} bytes left out: it does not fit the output budget]"
    ));
    (serialised_len(&note) <= room).then_some(note)
}

/// The result of `attempt` for the largest cap in `low..=high` that succeeds, given that
/// `low` succeeded with `best`.
fn largest_fit(
    mut low: usize,
    mut high: usize,
    mut best: Value,
    attempt: impl Fn(usize) -> Option<Value>,
) -> Value {
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        match attempt(mid) {
            Some(v) => {
                best = v;
                low = mid;
            }
            None => high = mid - 1,
        }
    }
    best
}

/// `v` with every string longer than `strings` bytes cut in the middle, and every list or
/// map of more than `items` entries shortened to its first and last entries and a marker.
fn shorten(v: &Value, strings: usize, items: usize) -> Value {
    match v {
        Value::String(s) if s.len() > strings => Value::String(cut_middle(s, strings).0),
        Value::Array(list) if list.len() > items => {
            let head = items.div_ceil(2);
            let tail = items - head;
            let mut out: Vec<Value> = list[..head]
                .iter()
                .map(|x| shorten(x, strings, items))
                .collect();
            out.push(Value::String(format!(
                "[… {} items omitted …]",
                list.len() - items
            )));
            out.extend(
                list[list.len() - tail..]
                    .iter()
                    .map(|x| shorten(x, strings, items)),
            );
            Value::Array(out)
        }
        Value::Array(list) => {
            Value::Array(list.iter().map(|x| shorten(x, strings, items)).collect())
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map.iter().take(items) {
                out.insert(k.clone(), shorten(x, strings, items));
            }
            if map.len() > items {
                out.insert(
                    "…".into(),
                    Value::String(format!("[{} more keys omitted]", map.len() - items)),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn longest_string(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(list) => list.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(map) => map.values().map(longest_string).max().unwrap_or(0),
        _ => 0,
    }
}

fn widest_collection(v: &Value) -> usize {
    match v {
        Value::Array(list) => list
            .iter()
            .map(widest_collection)
            .max()
            .unwrap_or(0)
            .max(list.len()),
        Value::Object(map) => map
            .values()
            .map(widest_collection)
            .max()
            .unwrap_or(0)
            .max(map.len()),
        _ => 0,
    }
}

/// The model's copy of `files_changed`: the first names, and a count of the rest, within
/// `room` bytes of JSON.
fn files_for_model(files: &[String], room: usize) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    let mut used = 2;
    for f in files.iter().take(MAX_FILES_NAMED) {
        let len = escaped_len(f) + 1;
        if used + len > room.saturating_sub(40) {
            break;
        }
        used += len;
        named.push(f.clone());
    }
    if named.len() < files.len() {
        named.push(format!("[… and {} more files]", files.len() - named.len()));
    }
    named
}

fn serialise(result: &ToolResult) -> String {
    serde_json::to_string(result).unwrap_or_else(|e| {
        format!(r#"{{"success":false,"output":"","error":"unserialisable result: {e}"}}"#)
    })
}

fn serialised_len(v: &Value) -> usize {
    serde_json::to_string(v).map_or(usize::MAX, |s| s.len())
}

/// The length of `s` as a JSON string, quotes included (serde_json's escapes).
fn escaped_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..0x20 => 6,
            _ => 1,
        })
        .sum::<usize>()
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;

//! HTML to readable text for the model: markdown (headings, links, lists, tables, code)
//! through `htmd`, with the parts of a page that are not its content left out (scripts,
//! styles, navigation, headers, footers, forms, embedded frames and media).
//!
//! `htmd` walks the document recursively, so a hostile page of a million nested `<div>`s
//! could exhaust a thread's stack and abort Loom. Documents nested deeper than
//! [`MAX_DEPTH`] are therefore reduced to their text by a flat scan instead, and the
//! conversion runs on its own thread with a generous stack.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// Deepest element nesting converted as structure; deeper documents become plain text.
pub const MAX_DEPTH: usize = 512;

/// Elements that are never content.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "footer", "header", "aside", "form",
    "button", "iframe", "svg", "canvas", "video", "audio", "object", "embed", "select", "head",
];

/// Elements without a closing tag (they do not nest).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// The `<title>` of a document, if it has one.
pub fn title(html: &str) -> Option<String> {
    let lower = html.get(..html.len().min(64 * 1024))?.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let end = open_end + lower[open_end..].find("</title")?;
    let t = html
        .get(open_end..end)?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!t.is_empty()).then(|| decode_entities(&t))
}

fn decode_entities(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
}

/// A rough upper bound on how deeply the document's elements nest, from its tags alone.
pub fn nesting_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while let Some(off) = memchr_lt(&bytes[i..]) {
        i += off + 1;
        let closing = bytes.get(i) == Some(&b'/');
        let start = if closing { i + 1 } else { i };
        let mut end = start;
        while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        if end == start {
            continue;
        }
        let name = html[start..end].to_ascii_lowercase();
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            let tag_end = html[end..].find('>').map(|p| end + p);
            let self_closing = tag_end.is_some_and(|p| p > 0 && bytes[p - 1] == b'/');
            if !self_closing {
                depth += 1;
                max = max.max(depth);
            }
        }
    }
    max
}

fn memchr_lt(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'<')
}

/// The text of an HTML document by a flat scan: tags dropped, skipped elements' contents
/// dropped, whitespace collapsed. Used when the document is too deep to convert safely.
pub fn flat_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::new();
    let mut i = 0;
    while i < html.len() {
        let Some(off) = lower[i..].find('<') else {
            out.push_str(&html[i..]);
            break;
        };
        out.push_str(&html[i..i + off]);
        i += off;
        let skipped = SKIPPED.iter().find(|t| {
            lower[i + 1..].starts_with(*t)
                && !lower[i + 1 + t.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        });
        if let Some(tag) = skipped
            && let Some(close) = lower[i..].find(&format!("</{tag}"))
        {
            i += close;
        }
        match lower[i..].find('>') {
            Some(end) => {
                i += end + 1;
                out.push(' ');
            }
            None => break,
        }
    }
    decode_entities(&out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Markdown for an HTML document (content only).
pub fn to_markdown(html: &str) -> String {
    if nesting_depth(html) > MAX_DEPTH {
        return flat_text(html);
    }
    let html = html.to_string();
    let run = move || {
        let converter = htmd::HtmlToMarkdown::builder()
            .skip_tags(SKIPPED.to_vec())
            .build();
        converter.convert(&html).unwrap_or_default()
    };
    // The document is shallow enough for the default stack; the big stack is a margin,
    // and a thread that cannot start means converting here.
    match std::thread::Builder::new()
        .name("loom-html".into())
        .stack_size(64 << 20)
        .spawn(run)
    {
        Ok(handle) => handle.join().unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// Plain text from markdown: the words, paragraphs and list items on their own lines, link
/// targets dropped.
pub fn markdown_to_text(md: &str) -> String {
    let mut out = String::new();
    for event in Parser::new_ext(md, pulldown_cmark::Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push('\n'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::End(TagEnd::TableCell) => out.push('\t'),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead,
            ) => out.push('\n'),
            _ => {}
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title>Rust &amp; You</title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<header>Site banner</header>
<main><h1>Tables</h1><p>Some <b>bold</b> text and a <a href="https://x.example/">link</a>.</p>
<table><thead><tr><th>Name</th><th>Age</th></tr></thead>
<tbody><tr><td>Ann</td><td>31</td></tr><tr><td>Bob</td><td>42</td></tr></tbody></table>
<pre><code>fn main() {}</code></pre></main>
<footer>Copyright boilerplate</footer><script>track()</script></body></html>"#;

    #[test]
    fn html_becomes_markdown_without_boilerplate() {
        let md = to_markdown(PAGE);
        assert!(md.contains("# Tables"), "{md}");
        assert!(md.contains("**bold**"), "{md}");
        assert!(md.contains("[link](https://x.example/)"), "{md}");
        assert!(md.contains("| Name | Age |"), "{md}");
        assert!(
            md.lines()
                .any(|l| l.starts_with("| Bob") && l.contains("| 42")),
            "{md}"
        );
        assert!(md.contains("fn main() {}"), "{md}");
        for gone in [
            "do not show",
            "color: red",
            "track()",
            "Home",
            "Site banner",
            "Copyright",
        ] {
            assert!(!md.contains(gone), "{gone:?} left in:\n{md}");
        }
        assert_eq!(title(PAGE).as_deref(), Some("Rust & You"));
    }

    #[test]
    fn markdown_to_text_keeps_words() {
        let text = markdown_to_text(&to_markdown(PAGE));
        assert!(text.contains("Tables"), "{text}");
        assert!(text.contains("Some bold text and a link."), "{text}");
        assert!(!text.contains("https://x.example"), "{text}");
        assert!(!text.contains("**"), "{text}");
    }

    #[test]
    fn hostile_nesting_becomes_flat_text_without_crashing() {
        let deep = format!(
            "{}deep text{}",
            "<div>".repeat(200_000),
            "</div>".repeat(10)
        );
        assert!(nesting_depth(&deep) > MAX_DEPTH);
        let md = to_markdown(&deep);
        assert_eq!(md, "deep text");
        assert_eq!(nesting_depth("<p>a<br>b<img src=x/></p>"), 1);
        let flat = flat_text("<p>a</p><script>x()</script><p>b &amp; c</p>");
        assert_eq!(flat, "a b & c");
    }
}

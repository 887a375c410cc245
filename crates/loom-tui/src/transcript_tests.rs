use super::*;
use crate::theme::ColorDepth;

fn theme() -> Theme {
    Theme::fallback(ColorDepth::TrueColor)
}

fn screen(t: &mut Transcript, w: u16, h: u16) -> Vec<String> {
    t.prepare(w, h);
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    t.render(area, &mut buf);
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn follows_the_bottom_and_holds_when_scrolled_up() {
    let mut t = Transcript::new(&theme());
    for i in 0..20 {
        t.push_user(&format!("message {i}"));
    }
    let s = screen(&mut t, 30, 5);
    assert!(s.iter().any(|l| l.contains("message 19")), "{s:?}");
    t.scroll_up(10);
    let before = screen(&mut t, 30, 5);
    t.push_user("brand new");
    let after = screen(&mut t, 30, 5);
    assert_eq!(before[..4], after[..4], "the view stays put");
    assert!(after[4].contains("new output below"), "{after:?}");
    t.scroll_end();
    let s = screen(&mut t, 30, 5);
    assert!(s.iter().any(|l| l.contains("brand new")));
}

#[test]
fn streaming_answers_grow_in_place() {
    let mut t = Transcript::new(&theme());
    t.push_user("hi");
    t.push_delta("Hello");
    assert!(screen(&mut t, 30, 6).iter().any(|l| l == "Hello"));
    t.push_delta(" world\n\nSecond para");
    let s = screen(&mut t, 30, 6);
    assert!(
        s.iter().any(|l| l == "Hello world") && s.iter().any(|l| l == "Second para"),
        "{s:?}"
    );
    let renders = t.renders();
    t.finish_answer();
    let s = screen(&mut t, 30, 6);
    assert!(s.iter().any(|l| l == "Second para"));
    assert_eq!(t.renders(), renders, "finishing keeps the streamed lines");
}

#[test]
fn resize_rewraps() {
    let mut t = Transcript::new(&theme());
    t.push_answer("one two three four five six seven eight");
    let wide = screen(&mut t, 60, 4);
    let narrow = screen(&mut t, 12, 8);
    assert_eq!(wide.iter().filter(|l| !l.is_empty()).count(), 1);
    assert!(
        narrow.iter().filter(|l| !l.is_empty()).count() >= 3,
        "{narrow:?}"
    );
}

#[test]
fn theme_switches_restyle_visible_answers_on_ticks_and_leave_the_rest() {
    let mut t = Transcript::new(&theme());
    for i in 0..500 {
        t.push_answer(&format!("answer **{i}**"));
    }
    screen(&mut t, 40, 10);
    t.scroll_home();
    screen(&mut t, 40, 10);
    t.scroll_end();
    screen(&mut t, 40, 10);
    assert!(t.cache.contains(t.key(0)), "the top was rendered");
    t.set_theme(&Theme::load("light", ColorDepth::TrueColor).unwrap());
    assert!(t.restyling(), "the visible answers wait for ticks");
    let s = screen(&mut t, 40, 10);
    assert!(s.iter().any(|l| l.contains("answer 499")), "{s:?}");
    assert!(t.restyling(), "a frame alone restyles nothing");
    let renders = t.renders();
    for _ in 0..3 {
        t.restyle_visible();
        screen(&mut t, 40, 10);
    }
    assert!(!t.restyling(), "ticks restyle what is visible");
    let restyled = t.renders() - renders;
    assert!(
        restyled <= t.view.visible.len() as u64,
        "only visible entries were restyled ({restyled})"
    );
    assert!(t.stale(0), "the top waits until it is scrolled to");
}

#[test]
fn ten_thousand_messages_render_only_what_is_visible() {
    let mut t = Transcript::new(&theme());
    for i in 0..10_000 {
        t.push_user(&format!("question {i}"));
        t.push_answer(&format!("answer {i} with **bold** text"));
    }
    let s = screen(&mut t, 40, 10);
    assert!(s.iter().any(|l| l.contains("answer 9999")), "{s:?}");
    assert!(t.renders() <= 20, "{} entries rendered", t.renders());
    t.scroll_home();
    let s = screen(&mut t, 40, 10);
    assert!(s[0].contains("question 0"), "{s:?}");
    assert!(t.renders() <= 40, "{} entries rendered", t.renders());
}

#[test]
fn a_corrected_estimate_above_the_view_does_not_move_it() {
    let mut t = Transcript::new(&theme());
    for i in 0..200 {
        // Long answers: their estimates are rough until they are rendered.
        t.push_answer(&format!(
            "{i}\n\n```rust\nfn f_{i}() {{}}\n```\n\n- a\n- b\n\nend of {i}"
        ));
    }
    screen(&mut t, 40, 12);
    t.scroll_up(300);
    let before = screen(&mut t, 40, 12);
    let anchor = t.view.anchor;
    // Render everything above: every estimate there is replaced by a measured height.
    for i in 0..anchor.0 {
        t.ensure(i);
    }
    let after = screen(&mut t, 40, 12);
    assert_eq!(before, after, "the view stays on the same lines");
    assert_eq!(t.view.anchor, anchor);
}

#[test]
fn scrolling_up_page_by_page_reaches_the_first_message_and_back() {
    let mut t = Transcript::new(&theme());
    for i in 0..300 {
        t.push_user(&format!("question {i}"));
        t.push_answer(&format!("answer {i}\n\n```sh\necho {i}\n```"));
    }
    screen(&mut t, 40, 10);
    let mut pages = 0;
    while !screen(&mut t, 40, 10)[0].contains("question 0") {
        t.scroll_up(10);
        pages += 1;
        assert!(pages < 2_000, "the top is reached");
    }
    while !t.following() {
        t.scroll_down(10);
        screen(&mut t, 40, 10);
    }
    let s = screen(&mut t, 40, 10);
    assert!(s.iter().any(|l| l.contains("answer 299")), "{s:?}");
}

#[test]
fn the_cache_stays_bounded_while_scrolling_through_everything() {
    let mut t = Transcript::new(&theme());
    for i in 0..3_000 {
        t.push_answer(&format!("answer {i}\n\nwith\nseveral\nlines\nof\ntext"));
    }
    t.scroll_home();
    while !t.following() {
        screen(&mut t, 40, 30);
        t.scroll_down(30);
    }
    assert!(
        t.cache.lines() <= super::super::render_cache::MAX_LINES,
        "{} lines cached",
        t.cache.lines()
    );
    assert!(t.cached_entries() < 3_000);
}

fn scrollback(t: &Transcript, width: u16) -> String {
    let mut out = Vec::new();
    t.write_scrollback(width, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_scrollback_after_exit_holds_the_newest_entries() {
    let mut t = Transcript::new(&theme());
    for i in 0..(SCROLLBACK_LINES + 10) {
        t.push_user(&format!("q{i}"));
    }
    let text = scrollback(&t, 200);
    let rows: Vec<&str> = text.split("\r\n").filter(|r| !r.is_empty()).collect();
    assert!(rows[0].contains("earlier entries are in the session file"));
    assert!(
        rows.last()
            .unwrap()
            .contains(&format!("q{}", SCROLLBACK_LINES + 9))
    );
    assert!(rows.len() <= SCROLLBACK_LINES + 2);
}

/// A long answer in the shape of the streaming bench's (headings, lists, code, tables):
/// more lines than the render cache's whole bound.
fn long_answer() -> String {
    let mut s = String::new();
    for i in 0..500 {
        s.push_str(&format!(
            "## Step {i}\n\nWe change **`module_{i}`** so that it *handles* the edge case.\n\n- first point\n- second with `code`\n\n```rust\nfn handle_{i}(input: &str) -> usize {{\n    input.len() * {i}\n}}\n```\n\n| case | before |\n|---|---|\n| {i} | fails |\n\n"
        ));
    }
    s
}

fn stream(t: &mut Transcript, text: &str, w: u16, h: u16) {
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let end = (start + 40).min(bytes.len());
        t.push_delta(&text[start..end]);
        if start % 400 == 0 {
            screen(t, w, h);
        }
        start = end;
    }
}

/// The bug: when the turn ended, the finished answer (taller than the cache's bound) was
/// dropped from the cache as soon as the next entry was inserted, and the following frame
/// rendered and highlighted all of it again.
#[test]
fn a_finished_stream_is_not_rendered_again_on_the_next_frames() {
    crate::highlight::load_now();
    let answer = long_answer();
    let mut t = Transcript::new(&theme());
    stream(&mut t, &answer, 80, 20);
    screen(&mut t, 80, 20);
    let before = t.renders();
    t.finish_answer();
    t.push_notice(NoticeLevel::Info, "took 1.2s");
    for _ in 0..3 {
        screen(&mut t, 80, 20);
    }
    assert_eq!(t.renders() - before, 1, "only the notice is rendered");
    t.scroll_up(30);
    let s = screen(&mut t, 80, 20);
    assert!(s.iter().any(|l| l.contains("Step 498")), "{s:?}");
    assert_eq!(
        t.renders() - before,
        1,
        "scrolling within it renders nothing"
    );
}

/// What is drawn from the streamed lines is what rendering the whole answer draws, at the
/// width it streamed at and after a resize (which measures again but renders nothing).
#[test]
fn a_streamed_answer_looks_like_the_same_answer_rendered_whole_before_and_after_a_resize() {
    crate::highlight::load_now();
    let answer = long_answer();
    let mut streamed = Transcript::new(&theme());
    stream(&mut streamed, &answer, 70, 25);
    let mut whole = Transcript::new(&theme());
    whole.push_answer(&answer);
    assert_eq!(screen(&mut streamed, 70, 25), screen(&mut whole, 70, 25));
    streamed.finish_answer();
    for (w, h) in [(70, 25), (43, 31), (70, 25)] {
        let renders = streamed.renders();
        for up in [0, 7, 500, 3_000] {
            streamed.scroll_end();
            whole.scroll_end();
            streamed.scroll_up(up);
            whole.scroll_up(up);
            assert_eq!(
                screen(&mut streamed, w, h),
                screen(&mut whole, w, h),
                "{w}x{h} up {up}"
            );
        }
        assert_eq!(streamed.renders(), renders, "no rendering at {w}x{h}");
    }
}

/// The scrollback written at exit wraps the lines the chat already rendered (to the
/// terminal's width, wider than the chat pane) instead of rendering the answer again, and
/// writes what rendering it again would.
#[test]
fn the_exit_scrollback_reuses_the_rendered_answer() {
    crate::highlight::load_now();
    let answer = long_answer();
    let mut t = Transcript::new(&theme());
    stream(&mut t, &answer, 60, 20);
    t.finish_answer();
    screen(&mut t, 60, 20);
    let renders = t.renders();
    let written = scrollback(&t, 100);
    assert_eq!(t.renders(), renders, "nothing rendered for the scrollback");
    let mut fresh = Transcript::new(&theme());
    fresh.push_answer(&answer);
    assert_eq!(written, scrollback(&fresh, 100));
    assert!(written.contains("handle_499"));
    assert_eq!(
        fresh.renders(),
        1,
        "an entry not rendered yet is rendered to be written"
    );
}

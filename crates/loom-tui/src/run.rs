//! The terminal and the event loop.
//!
//! The terminal is put in raw mode on the alternate screen (or, inline, in a region at the
//! bottom of the normal screen: `inline.rs`) with bracketed paste, focus
//! events and the keyboard enhancement that tells Shift+Enter from Enter, and restored
//! exactly on quit, on Ctrl+C twice, on SIGTERM/SIGHUP and on panic (the panic message
//! prints after the restore). The first frame is drawn before anything slow happens: the
//! provider is resolved (and local servers probed) while the UI is already up, and ops
//! typed meanwhile wait in the agent's queue.
//!
//! Redraws are requested, never forced: the loop drains what arrived, marks the screen
//! dirty, and draws at most once per frame interval, wrapped in synchronized output. An
//! idle minute costs no frames; a burst of a thousand deltas costs one.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, Event, EventStream, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;

use super::app::App;
use super::host::Host;
use super::layers::trust_prompt::TrustPrompt;
use super::theme::{ColorDepth, Theme};
use crate::protocol::events::{AgentEvent, UserOp};
use crate::protocol::stored::LoadedSession;

/// What the full-screen mode starts with (defined with the [`Host`] it is handed with).
pub use super::host::TuiOptions;

/// Shortest time between two frames (about 120 fps).
const FRAME: Duration = Duration::from_millis(8);
/// How often animations (spinners, elapsed times) refresh.
const ANIMATION: Duration = Duration::from_millis(100);

mod agents;
mod editor;

use agents::Agents;

static RESTORED: AtomicBool = AtomicBool::new(true);
/// Inline mode: no alternate screen and no mouse capture (the terminal's own scrolling and
/// selection work on the history above).
static INLINE: AtomicBool = AtomicBool::new(false);

fn enter(inline: bool) -> std::io::Result<()> {
    enable_raw_mode()?;
    RESTORED.store(false, Ordering::SeqCst);
    INLINE.store(inline, Ordering::SeqCst);
    let mut out = std::io::stdout();
    if !inline {
        execute!(out, EnterAlternateScreen, EnableMouseCapture)?;
    }
    execute!(
        out,
        EnableBracketedPaste,
        EnableFocusChange,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES),
    )
}

/// Put the terminal back as it was (idempotent; safe from a panic hook).
pub fn restore() {
    if RESTORED.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut out = std::io::stdout();
    let _ = execute!(
        out,
        PopKeyboardEnhancementFlags,
        DisableMouseCapture,
        DisableFocusChange,
        DisableBracketedPaste,
    );
    if !INLINE.load(Ordering::SeqCst) {
        let _ = execute!(out, LeaveAlternateScreen);
    }
    let _ = execute!(out, cursor::Show);
    super::notify::restore_title(&mut out);
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Run the full-screen assistant until the person quits, with `host` doing for it what
/// needs the core.
pub async fn run(opts: TuiOptions, host: Box<dyn Host>) -> anyhow::Result<ExitCode> {
    super::highlight::preload();
    let depth = ColorDepth::detect();
    // With no theme named, the terminal is asked for its background once it is in raw mode
    // (below); until then `COLORFGBG` is the best guess.
    let auto = opts.theme.is_none();
    let colorfgbg = std::env::var("COLORFGBG").ok();
    let name = match &opts.theme {
        None => super::theme::for_background(super::background::decide(None, colorfgbg.as_deref())),
        Some(name) => name.as_str(),
    };
    let (theme, theme_error) = match Theme::load(name, depth) {
        Ok(t) => (t, None),
        Err(e) => (Theme::fallback(depth), Some(e)),
    };
    let session_id = opts.status.session_id.clone();
    let (ops_tx, ops_rx) = mpsc::unbounded_channel::<UserOp>();
    let mut app = App::new(theme, opts.status.clone(), ops_tx.clone());
    app.tools.summarizer = Some(host.summarizer());
    welcome(&mut app, &opts, theme_error);

    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    let inline = opts.inline;
    enter(inline)?;
    if auto {
        pick_theme_for_the_terminal(&mut app, depth, colorfgbg.as_deref());
    }
    // No `Terminal::clear()` here or on resize: it asks the terminal for the cursor position
    // and waits up to two seconds for an answer some terminals never send. The alternate
    // screen starts blank, and `resize` clears and forces a full redraw without asking.
    // (Inline mode has to ask once, to know where the live region starts.)
    let mut terminal = open_terminal(inline, &mut app)?;
    draw(&mut terminal, &mut app)?;

    let notifier = super::notify::Notifier::new(
        opts.notify.clone(),
        super::notify::TermEnv::detect(),
        opts.workspace.clone(),
    );
    let agents = Agents::new(opts, host, session_id, ops_rx);
    let result = event_loop(&mut terminal, &mut app, agents, notifier).await;
    let _ = ops_tx.send(UserOp::Shutdown);
    if inline {
        leave_live_region(&mut terminal, &mut app);
    }
    restore();
    result?;
    say_saved(&app, inline);
    Ok(ExitCode::SUCCESS)
}

/// What the first frame shows: a resumed conversation, what went wrong with the theme,
/// the sandbox's notice, the first message sent, the resume picker, or the question
/// whether to trust the project's config.
fn welcome(app: &mut App, opts: &TuiOptions, theme_error: Option<String>) {
    app.draft.workspace_root = Some(opts.workspace.clone());
    if let Some(r) = &opts.resume {
        app.load_conversation(r);
        app.say_resumed(r);
    }
    if let Some(e) = theme_error {
        app.transcript.push_notice(
            super::transcript::NoticeLevel::Error,
            &format!("theme: {e}; using dark"),
        );
    }
    if let Some(n) = &opts.sandbox_notice {
        app.transcript
            .push_notice(super::transcript::NoticeLevel::Warning, n);
    }
    app.draft.images = opts.images.clone();
    if let Some(p) = &opts.prompt {
        app.composer.remember(p);
        app.submit(p);
    }
    if opts.pick_session {
        app.open_resume_picker(true);
    }
    if let Some(question) = &opts.trust_question {
        app.push_question(Box::new(TrustPrompt::new(
            &question.file,
            question.ignored.clone(),
        )));
        // Keys typed while Loom starts were meant for the message box, not this prompt.
        app.layers.typeahead_until =
            Some(std::time::Instant::now() + super::approvals::QUESTION_GRACE);
    }
}

/// The terminal drawn on: the alternate screen, or inline a live region at the bottom.
fn open_terminal(
    inline: bool,
    app: &mut App,
) -> anyhow::Result<Terminal<CrosstermBackend<std::io::Stdout>>> {
    Ok(if inline {
        app.outbox.mouse_capture = false;
        let rows = crossterm::terminal::size().map(|(_, r)| r).unwrap_or(24);
        let options = ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Inline(super::inline::viewport_rows(rows)),
        };
        match Terminal::with_options(CrosstermBackend::new(std::io::stdout()), options) {
            Ok(t) => t,
            Err(e) => {
                restore();
                anyhow::bail!("inline mode needs the terminal to report its cursor: {e}");
            }
        }
    } else {
        Terminal::new(CrosstermBackend::new(std::io::stdout()))?
    })
}

/// Inline, on quitting: everything still in the live region goes to the scrollback, and
/// the region is cleared so the shell prompt follows the conversation.
fn leave_live_region(terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>, app: &mut App) {
    let _ = flush_settled(terminal, app, true);
    // Not `Terminal::clear()`: it asks the terminal where the cursor is.
    let top = terminal.get_frame().area().y;
    let _ = execute!(
        terminal.backend_mut(),
        cursor::MoveTo(0, top),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::FromCursorDown)
    );
}

/// After quitting: how to resume the session (and, from the alternate screen, the
/// conversation written to the scrollback).
fn say_saved(app: &App, inline: bool) {
    // `/resume` may have switched sessions.
    let session_id = app.status.session_id.clone();
    if inline {
        if app.transcript.flushed() > 0 {
            println!("Session {session_id} saved. Resume it with: loom --resume {session_id}");
        }
    } else if !app.transcript.is_empty() {
        // The conversation stays in the terminal's scrollback once the alternate screen
        // is gone.
        let width = crossterm::terminal::size().map(|(w, _)| w).unwrap_or(80);
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let _ = app.transcript.write_scrollback(width, &mut out);
        let _ = writeln!(
            out,
            "\nSession {session_id} saved. Resume it with: loom --resume {session_id}"
        );
        let _ = out.flush();
    }
}

/// Ask the terminal for its background and switch to the theme made for it; keys typed
/// meanwhile go to the message box.
fn pick_theme_for_the_terminal(app: &mut App, depth: ColorDepth, colorfgbg: Option<&str>) {
    let answer = super::background::query(super::background::TIMEOUT).unwrap_or_default();
    let name = super::theme::for_background(super::background::decide(answer.rgb, colorfgbg));
    if name != app.theme.id.name
        && let Ok(theme) = Theme::load(name, depth)
    {
        app.set_theme(theme);
    }
    let typed: String = String::from_utf8_lossy(&answer.typed)
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if !typed.is_empty() {
        app.composer.insert(&typed);
    }
}

/// Inline mode: move what will not change any more out of the live region into the
/// terminal's scrollback above it (everything when `all`).
fn flush_settled(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
    all: bool,
) -> std::io::Result<()> {
    let width = terminal.size()?.width;
    let lines = app.take_settled(width, all);
    if lines.is_empty() {
        return Ok(());
    }
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    terminal.insert_before(height, |buf| {
        for (i, l) in lines.iter().take(height as usize).enumerate() {
            buf.set_line(0, i as u16, l, width);
        }
    })
}

fn draw(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
) -> std::io::Result<()> {
    if INLINE.load(Ordering::SeqCst) {
        flush_settled(terminal, app, false)?;
    }
    app.tick(Instant::now());
    execute!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    let drawn = terminal.draw(|f| app.draw(f)).map(|_| ());
    execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
    drawn
}

/// A key, paste, mouse or resize event from the terminal.
fn on_input(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
    event: Event,
) -> std::io::Result<()> {
    match event {
        Event::Key(key) => app.on_key(key),
        Event::Paste(text) => app.on_paste(&text),
        Event::Mouse(m) => app.on_mouse(m),
        Event::Resize(w, h) if !INLINE.load(Ordering::SeqCst) => {
            terminal.resize(ratatui::layout::Rect::new(0, 0, w, h))?;
        }
        // Inline: ratatui asks the terminal where the cursor is, which can wait up to two
        // seconds while the input stream is open; a failure is said, never fatal.
        Event::Resize(..) => {
            if let Err(e) = terminal.autoresize() {
                app.transcript.push_notice(
                    super::transcript::NoticeLevel::Warning,
                    &format!("the live region could not follow the resize: {e}"),
                );
            }
        }
        Event::FocusGained => app.on_focus(true),
        Event::FocusLost => app.on_focus(false),
    }
    Ok(())
}

/// Write a copy made ready to the terminal: how it was copied, or why not.
fn write_copy(prepared: Result<super::clipboard::Prepared, String>) -> Result<String, String> {
    prepared.and_then(|p| {
        let mut out = std::io::stdout();
        out.write_all(p.sequence.as_bytes())
            .and_then(|()| out.flush())
            .map(|()| p.how)
            .map_err(|e| format!("cannot write to the terminal: {e}"))
    })
}

/// Capture the mouse, or let it go, as the screen now wants (`mouse`: as it is).
fn follow_mouse_capture(app: &App, mouse: &mut bool) -> std::io::Result<()> {
    if app.outbox.mouse_capture != *mouse {
        *mouse = app.outbox.mouse_capture;
        if *mouse {
            execute!(std::io::stdout(), EnableMouseCapture)?;
        } else {
            execute!(std::io::stdout(), DisableMouseCapture)?;
        }
    }
    Ok(())
}

/// `Ctrl+G`: leave the screen, edit `text` in the person's editor, come back and take
/// what they wrote (or say why not, leaving the message as it was).
fn edit_message(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
    text: &str,
) {
    let warn = |app: &mut App, e: &dyn std::fmt::Display| {
        app.transcript
            .push_notice(super::transcript::NoticeLevel::Error, &e.to_string());
    };
    let Some(editor) = editor::chosen(|k| std::env::var(k).ok()) else {
        return warn(app, &editor::EditError::NoEditor);
    };
    let inline = INLINE.load(Ordering::SeqCst);
    restore();
    let result = editor::edit(&editor, text);
    if let Err(e) = enter(inline) {
        warn(app, &format!("the terminal could not be set up again: {e}"));
    }
    if inline {
        let _ = terminal.clear();
    } else {
        // The whole screen is drawn again (`Terminal::clear` would ask the terminal where
        // its cursor is first, which a full screen does not need).
        let _ = execute!(
            std::io::stdout(),
            crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
        );
        terminal.swap_buffers();
    }
    match result {
        Ok(edited) => app.composer.set_text(&edited),
        Err(e) => warn(app, &e),
    }
}

/// Copies made ready off the UI thread: what was copied, and how or why not.
type Copied = (String, Result<super::clipboard::Prepared, String>);

/// Hand the agent's `first` event and every one already waiting behind it to the screen.
fn take_agent_events(
    app: &mut App,
    first: AgentEvent,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
) {
    // Events are stamped with the screen's clock (the status line's timers); it may not
    // have ticked for a while when nothing animated.
    app.now = Instant::now();
    app.on_agent_event(first);
    while let Ok(more) = events.try_recv() {
        app.on_agent_event(more);
    }
}

/// Start making the copy the screen asked for ready, off the UI thread (tmux may be slow
/// to answer); it comes back on `done`.
fn prepare_copy(app: &mut App, done: &mpsc::UnboundedSender<Copied>) {
    if let Some(pending) = app.outbox.clipboard.take() {
        let done = done.clone();
        tokio::task::spawn_blocking(move || {
            let prepared = super::clipboard::prepare(&pending.text);
            let _ = done.send((pending.what, prepared));
        });
    }
}

async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
    mut agents: Agents,
    mut notifier: super::notify::Notifier,
) -> anyhow::Result<()> {
    let mut input = EventStream::new();
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sighup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut animation = tokio::time::interval(ANIMATION);
    animation.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut dirty = false;
    let mut last_frame = Instant::now();
    let mut mouse = true;

    // The agent starts while the first frame is already on screen — unless the project's
    // config waits for the person's trust, which decides the configuration it starts with.
    let (copies_tx, mut copies) = mpsc::unbounded_channel::<Copied>();

    loop {
        // Before waiting: at launch nothing else may wake the loop (no key, no agent yet,
        // no animation once highlighting has loaded), and the agent must not wait for a key.
        agents.start_if_free();
        agents.list_sessions(app);
        let deadline = last_frame + FRAME;
        tokio::select! {
            biased;
            maybe = input.next() => match maybe {
                Some(Ok(event)) => {
                    on_input(terminal, app, event)?;
                    dirty = true;
                }
                Some(Err(_)) | None => app.outbox.quit = true,
            },
            Some(event) = agents.link.events.recv() => {
                take_agent_events(app, event, &mut agents.link.events);
                dirty = true;
            }
            resolved = &mut agents.link.provider, if !agents.link.provider_known => {
                agents.link.provider_known = true;
                let Ok((model, missing)) = resolved else { continue };
                app.status.model = model;
                app.provider.welcome = missing;
                dirty = true;
            }
            Some((what, prepared)) = copies.recv() => {
                // The sequence goes to the terminal here, between frames.
                app.copied(&what, write_copy(prepared));
                dirty = true;
            }
            _ = sigterm.recv() => app.outbox.quit = true,
            _ = sighup.recv() => app.outbox.quit = true,
            _ = animation.tick(), if app.animating() => dirty = true,
            _ = tokio::time::sleep_until(deadline.into()), if dirty => {}
        }
        if app.outbox.quit {
            return Ok(());
        }
        // A held answer is given before what it decides is followed (a trust answer
        // starts the agent).
        dirty |= app.give_held_answer(Instant::now());
        dirty |= agents.follow(app);
        prepare_copy(app, &copies_tx);
        if let Some(text) = app.outbox.edit_message.take() {
            // The editor reads the terminal: Loom's reader of it stops meanwhile.
            drop(input);
            edit_message(terminal, app, &text);
            input = EventStream::new();
            mouse = !INLINE.load(Ordering::SeqCst);
            dirty = true;
        }
        follow_mouse_capture(app, &mut mouse)?;
        notifier.flush(app, &mut std::io::stdout());
        if dirty && Instant::now() >= deadline {
            draw(terminal, app)?;
            last_frame = Instant::now();
            dirty = false;
        }
    }
}

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

use super::app::{App, StatusInfo};
use super::layers::trust_prompt::TrustPrompt;
use super::theme::{ColorDepth, Theme};
use crate::compose::session::StartError;
use crate::compose::{Mode, Session, SessionOptions};
use crate::config::Config;
use crate::config::trust::{self, ProjectTrust};
use crate::protocol::events::{AgentEvent, Phase, UserOp};
use crate::session::LoadedSession;
use crate::setup::{self, Provider};

/// Shortest time between two frames (about 120 fps).
const FRAME: Duration = Duration::from_millis(8);
/// How often animations (spinners, elapsed times) refresh.
const ANIMATION: Duration = Duration::from_millis(100);

mod agents;

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
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// What the full-screen mode starts with.
pub struct TuiOptions {
    /// The configuration.
    pub config: Config,
    /// The workspace root.
    pub workspace: std::path::PathBuf,
    /// A first message to send at once.
    pub prompt: Option<String>,
    /// Images attached to the first message (`--image`).
    pub images: Vec<crate::llm::image::Image>,
    /// A session to continue.
    pub resume: Option<LoadedSession>,
    /// The flags, to load the configuration again once the project config is trusted.
    pub flags: crate::config::FlagConfig,
    /// Draw at the bottom of the normal screen, finished messages going to the scrollback
    /// (`--inline`, `inline = true`; see `inline.rs`).
    pub inline: bool,
    /// Open with the resume picker (`--resume` without an id); the agent starts once a
    /// session is picked (or a new one, on Esc).
    pub pick_session: bool,
}

fn short_path(path: &std::path::Path) -> String {
    let shown = path.display().to_string();
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && shown.starts_with(&home) => {
            format!("~{}", &shown[home.len()..])
        }
        _ => shown,
    }
}

/// Run the full-screen assistant until the person quits.
pub async fn run(opts: TuiOptions) -> anyhow::Result<ExitCode> {
    super::highlight::preload();
    let depth = ColorDepth::detect();
    // With no theme named, the terminal is asked for its background once it is in raw mode
    // (below); until then `COLORFGBG` is the best guess.
    let auto = opts.config.theme == crate::config::AUTO_THEME;
    let colorfgbg = std::env::var("COLORFGBG").ok();
    let name = if auto {
        super::theme::for_background(super::background::decide(None, colorfgbg.as_deref()))
    } else {
        opts.config.theme.as_str()
    };
    let (theme, theme_error) = match Theme::load(name, depth) {
        Ok(t) => (t, None),
        Err(e) => (Theme::fallback(depth), Some(e)),
    };
    let session_id = opts
        .resume
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_else(crate::base::id::new_session_id);
    let sandbox = setup::sandbox_for(&opts.workspace, &opts.config);
    let (ops_tx, ops_rx) = mpsc::unbounded_channel::<UserOp>();
    let status = status_at_start(&opts, &sandbox, &session_id);
    let mut app = App::new(theme, status, ops_tx.clone());
    welcome(&mut app, &opts, &sandbox, theme_error);

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

    let result = event_loop(&mut terminal, &mut app, opts, session_id.clone(), ops_rx).await;
    let _ = ops_tx.send(UserOp::Shutdown);
    if inline {
        leave_live_region(&mut terminal, &mut app);
    }
    restore();
    result?;
    say_saved(&app, inline);
    Ok(ExitCode::SUCCESS)
}

/// What the status line shows before the agent has started.
fn status_at_start(
    opts: &TuiOptions,
    sandbox: &setup::SandboxStatus,
    session_id: &str,
) -> StatusInfo {
    StatusInfo {
        model: opts
            .config
            .model
            .clone()
            .unwrap_or_else(|| "connecting…".into()),
        phase: Phase::Idle,
        usage: Default::default(),
        last_prompt: 0,
        context_window: opts.config.context_window,
        autonomy: opts.config.autonomy,
        edits_allowed: false,
        auto_commit: opts.config.auto_commit,
        sandbox: sandbox.label.clone(),
        workspace: short_path(&opts.workspace),
        session_id: session_id.to_string(),
        mcp: Vec::new(),
        lsp: Vec::new(),
    }
}

/// What the first frame shows: a resumed conversation, what went wrong with the theme,
/// the sandbox's notice, the first message sent, the resume picker, or the question
/// whether to trust the project's config.
fn welcome(
    app: &mut App,
    opts: &TuiOptions,
    sandbox: &setup::SandboxStatus,
    theme_error: Option<String>,
) {
    app.draft.workspace_root = Some(opts.workspace.clone());
    if let Some(r) = &opts.resume {
        app.load_conversation(r);
        if let Some(report) = r.damage_report() {
            app.transcript
                .push_notice(super::transcript::NoticeLevel::Warning, &report);
        }
    }
    if let Some(e) = theme_error {
        app.transcript.push_notice(
            super::transcript::NoticeLevel::Error,
            &format!("theme: {e}; using dark"),
        );
    }
    if let Some(n) = &sandbox.notice {
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
    if let ProjectTrust::Untrusted { ignored, file, .. } = &opts.config.project_trust {
        let shown = file
            .strip_prefix(&opts.workspace)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| file.display().to_string());
        app.push_question(Box::new(TrustPrompt::new(&shown, ignored.clone())));
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
    if name != app.theme.name
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

/// The session `id` read from disk, or why it cannot be.
fn load_session(id: &str) -> Result<LoadedSession, String> {
    let dir =
        crate::session::sessions_dir().ok_or("no data directory, so no sessions are recorded")?;
    let path = crate::session::path_of(&dir, id)
        .ok_or_else(|| format!("no session {id:?}; see `loom sessions`"))?;
    crate::session::load(&path).map_err(|e| format!("cannot read session {id}: {e}"))
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
        Event::FocusGained | Event::FocusLost => {}
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

/// Copies made ready off the UI thread: what was copied, and how or why not.
type Copied = (String, Result<super::clipboard::Prepared, String>);

async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    app: &mut App,
    mut opts: TuiOptions,
    session_id: String,
    ops_rx: mpsc::UnboundedReceiver<UserOp>,
) -> anyhow::Result<()> {
    let mut input = EventStream::new();
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sighup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut animation = tokio::time::interval(ANIMATION);
    animation.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut dirty = false;
    let mut last_frame = Instant::now();
    let mut mouse = true;

    // Start the agent while the first frame is already on screen — unless the project's
    // config waits for the person's trust, which decides the configuration it starts with.
    let mut agents = Agents::new(&mut opts, session_id, ops_rx);
    let (copies_tx, mut copies) = mpsc::unbounded_channel::<Copied>();

    loop {
        // Before waiting: at launch nothing else may wake the loop (no key, no agent yet,
        // no animation once highlighting has loaded), and the agent must not wait for a key.
        agents.start_if_free();
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
                // Events are stamped with the screen's clock (the status line's timers);
                // it may not have ticked for a while when nothing animated.
                app.now = Instant::now();
                app.on_agent_event(event);
                while let Ok(more) = agents.link.events.try_recv() {
                    app.on_agent_event(more);
                }
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
        dirty |= agents.follow(app, &opts);
        if let Some(pending) = app.outbox.clipboard.take() {
            // tmux may be slow to answer: the copy is made ready off the UI thread.
            let done = copies_tx.clone();
            tokio::task::spawn_blocking(move || {
                let prepared = super::clipboard::prepare(&pending.text);
                let _ = done.send((pending.what, prepared));
            });
        }
        follow_mouse_capture(app, &mut mouse)?;
        if dirty && Instant::now() >= deadline {
            draw(terminal, app)?;
            last_frame = Instant::now();
            dirty = false;
        }
    }
}

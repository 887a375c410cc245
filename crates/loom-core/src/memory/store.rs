//! The SQLite side of [`Memory`]: opening (WAL, busy timeout, schema, integrity check,
//! moving a damaged file aside), and the statements behind store, recall, forget and list.
//!
//! A database that does not exist yet is not created when Loom starts but when something is
//! first stored (issue 26: opening SQLite, its schema and FTS5 touched about 2 MB of the
//! executable in every fresh session, which stayed resident while idle); until then reading
//! finds nothing, as an empty database would. An existing file is opened at start, so a
//! damaged one is still moved aside with a notice before the session begins.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use super::{
    BUSY_TIMEOUT, Category, Entry, MemoryError, ScopeKind, check_key, fts_query, workspace_scope,
};

/// Most entries one scope may hold; a new key beyond it is refused (updating is not).
pub const MAX_ENTRIES_PER_SCOPE: i64 = 10_000;

const GLOBAL: &str = "global";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries(
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    content TEXT NOT NULL,
    category TEXT NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    UNIQUE(scope, key)
);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    key, content, content='entries', content_rowid='id', tokenize='unicode61'
);
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, key, content) VALUES (new.id, new.key, new.content);
END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, key, content)
        VALUES ('delete', old.id, old.key, old.content);
END;
CREATE TRIGGER IF NOT EXISTS entries_au AFTER UPDATE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, key, content)
        VALUES ('delete', old.id, old.key, old.content);
    INSERT INTO entries_fts(rowid, key, content) VALUES (new.id, new.key, new.content);
END;
";

/// The memory database of one workspace (plus the global scope).
pub struct Memory {
    path: PathBuf,
    scope: String,
    /// `None` until the database file exists and is opened.
    conn: Mutex<Option<Connection>>,
    notice: OnceLock<String>,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("path", &self.path)
            .field("scope", &self.scope)
            .finish()
    }
}

/// Whether SQLite says the file is damaged or not a database at all.
fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// Why opening failed: damage (move the file aside), another connection in the way (try
/// again), or anything else (report it).
enum OpenFailure {
    Corrupt(String),
    Busy(String),
    Other(String),
}

/// [`connect`], again while SQLite says the database is busy, for at most
/// [`BUSY_TIMEOUT`]. Openers that race on a new file each read it and then want it
/// exclusively (to switch it to WAL): SQLite answers one of them "database is locked" at
/// once instead of calling the busy handler, as waiting could deadlock. Started over, its
/// read lock is gone and it waits like any other.
fn connect_patiently(path: &Path) -> Result<Connection, OpenFailure> {
    let started = std::time::Instant::now();
    loop {
        match connect(path) {
            Err(OpenFailure::Busy(_)) if started.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(OpenFailure::Busy(e)) => return Err(OpenFailure::Other(e)),
            done => return done,
        }
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn connect(path: &Path) -> Result<Connection, OpenFailure> {
    let classify = |e: rusqlite::Error| {
        if is_corrupt(&e) {
            OpenFailure::Corrupt(e.to_string())
        } else if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) {
            OpenFailure::Busy(e.to_string())
        } else {
            OpenFailure::Other(e.to_string())
        }
    };
    // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the mode of
    // the database file.
    crate::private::touch(path).map_err(|e| OpenFailure::Other(e.to_string()))?;
    let mut conn = Connection::open(path).map_err(classify)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(classify)?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
        .map_err(classify)?;
    let check: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(classify)?;
    if check != "ok" {
        return Err(OpenFailure::Corrupt(check));
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(classify)?;
    tx.execute_batch(SCHEMA).map_err(classify)?;
    tx.commit().map_err(classify)?;
    Ok(conn)
}

/// Move a damaged database (and its WAL and shared-memory files) aside; the new name.
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let stamp = crate::base::id::new_session_id();
    let aside = path.with_file_name(format!(
        "{}.corrupt-{stamp}",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("memory")
    ));
    std::fs::rename(path, &aside)?;
    for suffix in ["-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", path.display()));
        let _ = std::fs::remove_file(side);
    }
    Ok(aside)
}

/// Open (creating it if need be) the database file at `path`; a damaged one is moved aside
/// and a new one started, with a notice saying so.
fn open_file(path: &Path) -> Result<(Connection, Option<String>), MemoryError> {
    let db_error = |message: String| MemoryError::Database {
        path: path.to_path_buf(),
        message,
    };
    // Openers take turns (processes, or threads with their own connections): one that
    // finds the file damaged moves it aside and starts a new database while the others
    // wait, and they then find that one whole. Opening outside the turn let an opener
    // start a database (and its WAL) between the mover's rename and its clearing of the
    // old WAL and shared memory, which then deleted the new WAL: that opener's writes were
    // lost, or SQLite answered "disk I/O error" (the racing test, about 1 run in 80).
    let lock_path = PathBuf::from(format!("{}.lock", path.display()));
    let _turn = crate::lockfile::exclusive(&lock_path, true)
        .map_err(|e| db_error(format!("cannot lock {}: {e}", lock_path.display())))?;
    let mut notice = None;
    let conn = match connect_patiently(path) {
        Ok(c) => c,
        Err(OpenFailure::Other(e) | OpenFailure::Busy(e)) => return Err(db_error(e)),
        Err(OpenFailure::Corrupt(why)) => {
            let aside = move_aside(path)
                .map_err(|e| db_error(format!("it is damaged ({why}) and cannot be moved: {e}")))?;
            notice = Some(format!(
                "the memory database {} was damaged ({why}); it was moved to {} and a new \
                 one started",
                path.display(),
                aside.display()
            ));
            match connect_patiently(path) {
                Ok(c) => c,
                Err(OpenFailure::Other(e) | OpenFailure::Busy(e) | OpenFailure::Corrupt(e)) => {
                    return Err(db_error(e));
                }
            }
        }
    };
    Ok((conn, notice))
}

impl Memory {
    /// Open (creating it if need be) the database at `path` for the workspace at `root`.
    /// A damaged file is moved aside and a new database started; [`Memory::notice`] then
    /// says so.
    pub fn open(path: &Path, root: &Path) -> Result<Memory, MemoryError> {
        if let Some(dir) = path.parent() {
            crate::private::create_dir_all(dir).map_err(|e| MemoryError::Database {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        let memory = Memory {
            path: path.to_path_buf(),
            scope: workspace_scope(root),
            conn: Mutex::new(None),
            notice: OnceLock::new(),
        };
        if path.exists() {
            let mut conn = memory.conn.lock().unwrap_or_else(|p| p.into_inner());
            *conn = Some(memory.connect()?);
        }
        Ok(memory)
    }

    /// Open the database file (creating it if need be), moving a damaged one aside and
    /// keeping the notice that says so.
    fn connect(&self) -> Result<Connection, MemoryError> {
        let (conn, notice) = open_file(&self.path)?;
        if let Some(notice) = notice {
            let _ = self.notice.set(notice);
        }
        Ok(conn)
    }

    /// Open the database in Loom's data directory for the workspace at `root`.
    pub fn open_default(root: &Path) -> Result<Memory, MemoryError> {
        let path = super::default_path().ok_or(MemoryError::NoDataDir)?;
        Memory::open(&path, root)
    }

    /// What to tell the person about opening (a damaged file moved aside), if anything.
    pub fn notice(&self) -> Option<&str> {
        self.notice.get().map(String::as_str)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn scope_key(&self, scope: ScopeKind) -> &str {
        match scope {
            ScopeKind::Workspace => &self.scope,
            ScopeKind::Global => GLOBAL,
        }
    }

    fn error(&self, e: rusqlite::Error) -> MemoryError {
        let hint = if is_corrupt(&e) {
            "; the file is damaged — it is moved aside when Loom next starts"
        } else {
            ""
        };
        MemoryError::Database {
            path: self.path.clone(),
            message: format!("{e}{hint}"),
        }
    }

    /// Run `f` on the connection, opening (and so creating) the database first if need be.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, MemoryError> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = match &mut *conn {
            Some(conn) => conn,
            None => conn.insert(self.connect()?),
        };
        f(conn).map_err(|e| self.error(e))
    }

    /// Like [`Memory::with_conn`] for what only reads: while no database file exists (none
    /// was there at start and nothing has been stored since) it holds nothing, and
    /// reading it answers `T::default()` without creating it.
    fn read_conn<T: Default>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, MemoryError> {
        let opened = self
            .conn
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if !opened && !self.path.exists() {
            return Ok(T::default());
        }
        self.with_conn(f)
    }

    /// Store `content` under `key` in `scope`, replacing an entry with the same key there.
    /// True when an entry was replaced.
    pub fn store(
        &self,
        key: &str,
        content: &str,
        category: Category,
        scope: ScopeKind,
    ) -> Result<bool, MemoryError> {
        let key = check_key(key)?;
        let content = &super::normalise_content(content);
        if content.trim().is_empty() || content.len() > super::MAX_CONTENT_BYTES {
            return Err(MemoryError::BadContent);
        }
        let scope_key = self.scope_key(scope).to_string();
        let time = now();
        let outcome = self.with_conn(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let existed: Option<i64> = tx
                .query_row(
                    "SELECT id FROM entries WHERE scope = ?1 AND key = ?2",
                    params![scope_key, key],
                    |r| r.get(0),
                )
                .optional()?;
            if existed.is_none() {
                let count: i64 = tx.query_row(
                    "SELECT count(*) FROM entries WHERE scope = ?1",
                    params![scope_key],
                    |r| r.get(0),
                )?;
                if count >= MAX_ENTRIES_PER_SCOPE {
                    return Ok(None);
                }
            }
            tx.execute(
                "INSERT INTO entries(scope, key, content, category, created, updated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                 ON CONFLICT(scope, key) DO UPDATE SET
                    content = excluded.content, category = excluded.category,
                    updated = excluded.updated",
                params![scope_key, key, content, category.as_str(), time],
            )?;
            tx.commit()?;
            Ok(Some(existed.is_some()))
        })?;
        outcome.ok_or_else(|| MemoryError::Database {
            path: self.path.clone(),
            message: format!(
                "the {} scope already holds {MAX_ENTRIES_PER_SCOPE} memories; forget some first",
                scope.as_str()
            ),
        })
    }

    /// Entries matching `query`, best first (bm25; the key weighs twice the content), from
    /// `scope` or (`None`) from the workspace and the global scope.
    pub fn recall(
        &self,
        query: &str,
        limit: usize,
        scope: Option<ScopeKind>,
    ) -> Result<Vec<Entry>, MemoryError> {
        let fts = fts_query(query).ok_or(MemoryError::EmptyQuery)?;
        let limit = limit.clamp(1, super::MAX_RECALL) as i64;
        let (a, b) = self.scopes(scope);
        self.read_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT e.key, e.content, e.category, e.scope, e.created, e.updated
                 FROM entries_fts JOIN entries e ON e.id = entries_fts.rowid
                 WHERE entries_fts MATCH ?1 AND e.scope IN (?2, ?3)
                 ORDER BY bm25(entries_fts, 2.0, 1.0), e.updated DESC
                 LIMIT ?4",
            )?;
            let rows = stmt.query_map(params![fts, a, b, limit], row_entry)?;
            rows.collect()
        })
    }

    fn scopes(&self, scope: Option<ScopeKind>) -> (String, String) {
        match scope {
            None => (self.scope.clone(), GLOBAL.to_string()),
            Some(s) => (self.scope_key(s).to_string(), self.scope_key(s).to_string()),
        }
    }

    /// Delete the entry `key` of `scope`; the entry deleted.
    pub fn forget(&self, key: &str, scope: ScopeKind) -> Result<Entry, MemoryError> {
        let key = check_key(key)?;
        let scope_key = self.scope_key(scope).to_string();
        let other = match scope {
            ScopeKind::Workspace => ScopeKind::Global,
            ScopeKind::Global => ScopeKind::Workspace,
        };
        let other_key = self.scope_key(other).to_string();
        let (deleted, in_other) = self.read_conn(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let found = tx
                .query_row(
                    "SELECT key, content, category, scope, created, updated FROM entries
                     WHERE scope = ?1 AND key = ?2",
                    params![scope_key, key],
                    row_entry,
                )
                .optional()?;
            let mut in_other = false;
            if found.is_some() {
                tx.execute(
                    "DELETE FROM entries WHERE scope = ?1 AND key = ?2",
                    params![scope_key, key],
                )?;
            } else {
                in_other = tx
                    .query_row(
                        "SELECT 1 FROM entries WHERE scope = ?1 AND key = ?2",
                        params![other_key, key],
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
            }
            tx.commit()?;
            Ok((found, in_other))
        })?;
        deleted.ok_or_else(|| MemoryError::NotFound {
            key: key.clone(),
            scope: scope.as_str(),
            hint: if in_other {
                format!(
                    "; it exists in the {} scope — pass scope: \"{}\"",
                    other.as_str(),
                    other.as_str()
                )
            } else {
                "; memory_recall or `loom memory list` shows the keys".into()
            },
        })
    }

    /// Entries of `scope` (or both), newest first, at most `limit`.
    pub fn list(&self, scope: Option<ScopeKind>, limit: usize) -> Result<Vec<Entry>, MemoryError> {
        let (a, b) = self.scopes(scope);
        self.read_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT key, content, category, scope, created, updated FROM entries
                 WHERE scope IN (?1, ?2) ORDER BY updated DESC, key LIMIT ?3",
            )?;
            let rows = stmt.query_map(params![a, b, limit as i64], row_entry)?;
            rows.collect()
        })
    }

    /// The core memories of the workspace and the global scope, newest first (for the
    /// system prompt; one more than [`super::PROMPT_ENTRIES`] so it can say more exist).
    pub fn core(&self) -> Result<Vec<Entry>, MemoryError> {
        let (a, b) = self.scopes(None);
        self.read_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT key, content, category, scope, created, updated FROM entries
                 WHERE scope IN (?1, ?2) AND category = 'core'
                 ORDER BY scope = 'global', updated DESC, key LIMIT ?3",
            )?;
            let rows =
                stmt.query_map(params![a, b, (super::PROMPT_ENTRIES + 1) as i64], row_entry)?;
            rows.collect()
        })
    }
}

fn row_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    let category: String = r.get(2)?;
    let scope: String = r.get(3)?;
    Ok(Entry {
        key: r.get(0)?,
        content: r.get(1)?,
        category: Category::parse(&category),
        scope: if scope == GLOBAL {
            ScopeKind::Global
        } else {
            ScopeKind::Workspace
        },
        created: r.get(4)?,
        updated: r.get(5)?,
    })
}

#[cfg(test)]
impl Memory {
    /// The connection (opened first), for tests that set up states the API cannot reach
    /// quickly.
    pub(crate) fn conn_for_tests(&self) -> TestConn<'_> {
        self.with_conn(|_| Ok(())).unwrap();
        TestConn(self.conn.lock().unwrap())
    }

    /// Whether the database has been opened.
    pub(crate) fn is_open(&self) -> bool {
        self.conn.lock().unwrap().is_some()
    }
}

/// The open connection, held locked (tests).
#[cfg(test)]
pub(crate) struct TestConn<'a>(std::sync::MutexGuard<'a, Option<Connection>>);

#[cfg(test)]
impl std::ops::Deref for TestConn<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.0.as_ref().expect("opened by conn_for_tests")
    }
}

//! The client's file system as a session's [`EditorFiles`]: when the client announces
//! `fs.readTextFile` / `fs.writeTextFile` in `initialize`, Loom's file tools read its open
//! buffers through `fs/read_text_file` (so unsaved changes are seen) and every file Loom
//! writes is also sent with `fs/write_text_file` (so the buffer shows it). The tools only
//! ask about paths already resolved inside the workspace; an error or a missing answer
//! means the disk (the tool context bounds each request's wait).

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    FileSystemCapabilities, ReadTextFileRequest, WriteTextFileRequest,
};
use async_trait::async_trait;
use loom_core::tools::editor_files::EditorFiles;

/// One session's access to the client's buffers, as far as the client offers it.
pub struct ClientFiles {
    cx: ConnectionTo<Client>,
    session_id: String,
    read: bool,
    write: bool,
}

impl std::fmt::Debug for ClientFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientFiles")
            .field("session_id", &self.session_id)
            .field("read", &self.read)
            .field("write", &self.write)
            .finish()
    }
}

impl ClientFiles {
    /// Access for session `session_id` on `cx`, or `None` when the client `offers` neither
    /// reading nor writing (then nothing is ever asked of it).
    pub fn new(
        cx: ConnectionTo<Client>,
        session_id: &str,
        offers: &FileSystemCapabilities,
    ) -> Option<ClientFiles> {
        (offers.read_text_file || offers.write_text_file).then(|| ClientFiles {
            cx,
            session_id: session_id.to_string(),
            read: offers.read_text_file,
            write: offers.write_text_file,
        })
    }
}

#[async_trait]
impl EditorFiles for ClientFiles {
    async fn read(&self, path: &Path) -> Option<String> {
        if !self.read {
            return None;
        }
        let request = ReadTextFileRequest::new(self.session_id.clone(), path.to_path_buf());
        let answer = self.cx.send_request(request).block_task().await;
        answer.ok().map(|r| r.content)
    }

    async fn write(&self, path: &Path, content: &str) -> bool {
        if !self.write {
            return false;
        }
        let request = WriteTextFileRequest::new(
            self.session_id.clone(),
            path.to_path_buf(),
            content.to_string(),
        );
        self.cx.send_request(request).block_task().await.is_ok()
    }
}

//! OS-level confinement of commands. Filled in by the sandbox work; for now commands run
//! without one and the policy's approvals are the only guard.

/// How a command is confined by the operating system.
#[derive(Debug, Clone, Default)]
pub struct SandboxSpec {
    enabled: bool,
}

impl SandboxSpec {
    /// No OS confinement.
    pub fn off() -> SandboxSpec {
        SandboxSpec { enabled: false }
    }

    /// Install the confinement into `cmd` so it applies in the child before exec.
    pub fn install(&self, _cmd: &mut tokio::process::Command) {
        let _ = self.enabled;
    }
}

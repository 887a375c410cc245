//! `loom models`: what the configured (or discovered) server offers.

use std::process::ExitCode;
use std::time::Duration;

use crate::config::Config;
use crate::llm::discover;
use crate::setup::{self, Provider};

/// Print one model id per line, the one in use marked with `*`; a configured model the
/// server does not offer gets a last line marked `!` saying so.
pub async fn run(config: &Config) -> anyhow::Result<ExitCode> {
    let (base, current) = match setup::resolve_provider(config).await {
        Provider::Ready { settings, origin } => {
            eprintln!("{} ({origin})", settings.base_url);
            (settings.base_url, settings.model)
        }
        Provider::Missing { message } => {
            eprintln!("loom: {message}");
            return Ok(ExitCode::from(1));
        }
    };
    match discover::list_models(
        &base,
        config.provider.api_key.as_deref(),
        Duration::from_secs(10),
    )
    .await
    {
        Ok(models) => {
            for m in &models {
                let mark = if *m == current { "*" } else { " " };
                println!("{mark} {m}");
            }
            if !current.is_empty() && !models.contains(&current) {
                println!("! {current}  (configured, but this server does not offer it)");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("loom: cannot list models: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

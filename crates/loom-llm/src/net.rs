//! Every HTTP client in Loom, and the system's root certificates loaded once, on first need.
//!
//! reqwest builds its TLS configuration when a client is built, and with
//! rustls-platform-verifier that means reading and parsing every certificate under
//! `/etc/ssl/certs` (about 1.8 MB read, a few hundred files, ~0.5 MB of heap per client) —
//! for each client, even one that only ever speaks plain `http://` to a local llama-server
//! or Ollama. Loom built four at startup (the model list, the session's and the oracle's
//! model clients, the context-window probe), and the web tool one per request.
//!
//! Here the TLS configuration is built once per process with the same verifier reqwest would
//! use (rustls-platform-verifier over the installed crypto provider), but the verifier
//! itself, and with it the root store, is made the first time a server's certificate is
//! checked: plain `http://` never loads a root, and `https://` loads them once for the
//! whole process. Every client is built from [`builder`]; the short requests that need no
//! settings of their own (probes, model lists) share one client, [`shared`], and its
//! connection pool.

use std::sync::{Arc, LazyLock, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The platform's certificate verifier, made (and the system's roots read) the first time a
/// certificate is to be checked rather than when a client is built.
#[derive(Debug)]
pub struct LazyVerifier {
    provider: Arc<CryptoProvider>,
    made: OnceLock<rustls_platform_verifier::Verifier>,
}

impl LazyVerifier {
    /// A verifier over `provider` that has loaded nothing yet.
    pub fn new(provider: Arc<CryptoProvider>) -> LazyVerifier {
        LazyVerifier {
            provider,
            made: OnceLock::new(),
        }
    }

    /// Whether the system's root certificates have been loaded (tests and diagnostics: plain
    /// HTTP must leave this `false`).
    pub fn roots_loaded(&self) -> bool {
        self.made.get().is_some()
    }

    /// The platform verifier, made on the first call and kept once made. A failure to make
    /// it (no usable roots yet) is not kept: the next certificate check tries again, so a
    /// passing problem does not leave HTTPS broken until Loom restarts.
    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        if let Some(made) = self.made.get() {
            return Ok(made);
        }
        let made = rustls_platform_verifier::Verifier::new(self.provider.clone())?;
        Ok(self.made.get_or_init(|| made))
    }
}

impl ServerCertVerifier for LazyVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls13_signature(message, cert, dss)
    }

    /// What the platform verifier answers (the provider's schemes); asked only when a
    /// handshake starts, and answered without loading roots.
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The TLS configuration reqwest itself builds for a client with default TLS settings —
/// every protocol version, the installed provider, the platform verifier, no client
/// certificate, `http/1.1` as the only ALPN protocol (reqwest is built without HTTP/2) —
/// around `verifier`.
fn tls_config(provider: Arc<CryptoProvider>, verifier: Arc<LazyVerifier>) -> rustls::ClientConfig {
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .expect("the provider supports TLS 1.2 and 1.3")
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// The process's verifier and the configuration around it, made on first use.
struct Tls {
    verifier: Arc<LazyVerifier>,
    config: rustls::ClientConfig,
}

static TLS: LazyLock<Tls> = LazyLock::new(|| {
    super::ensure_tls();
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let verifier = Arc::new(LazyVerifier::new(provider.clone()));
    let config = tls_config(provider, verifier.clone());
    Tls { verifier, config }
});

/// A client builder whose TLS checks servers with the process's one lazily made platform
/// verifier; add the client's own settings (timeouts, redirects, a resolver) and build.
/// The TLS configuration is preset, so reqwest ignores TLS settings added to this builder
/// (extra roots, minimum versions, `danger_*`): change them in the shared configuration.
/// Clients made here share that configuration's session-resumption cache (keyed by server
/// name), as they share its verifier.
pub fn builder() -> reqwest::ClientBuilder {
    builder_with(&TLS.config)
}

/// A client builder around `config` (a test's own verifier).
fn builder_with(config: &rustls::ClientConfig) -> reqwest::ClientBuilder {
    reqwest::Client::builder().tls_backend_preconfigured(config.clone())
}

/// Whether this process has loaded the system's root certificates.
pub fn roots_loaded() -> bool {
    TLS.verifier.roots_loaded()
}

static SHARED: LazyLock<Option<reqwest::Client>> = LazyLock::new(|| builder().build().ok());

/// The client for short requests that set their own total timeout per request (the model
/// list, the context-window probes): one connection pool for all of them. `None` only when
/// no client can be built at all (no TLS backend, no resolver).
pub fn shared() -> Option<reqwest::Client> {
    SHARED.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> (Arc<LazyVerifier>, rustls::ClientConfig) {
        super::super::ensure_tls();
        let provider = CryptoProvider::get_default().cloned().unwrap();
        let verifier = Arc::new(LazyVerifier::new(provider.clone()));
        let config = tls_config(provider, verifier.clone());
        (verifier, config)
    }

    /// A one-shot HTTP/1.1 server on 127.0.0.1 answering `body` to whatever comes.
    async fn plain_server(body: &'static str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let mut seen = Vec::new();
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = socket.read(&mut buf).await.unwrap();
                if n == 0 {
                    return;
                }
                seen.extend_from_slice(&buf[..n]);
            }
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(reply.as_bytes()).await.unwrap();
        });
        format!("http://{addr}")
    }

    // The bug this guards: reqwest read and parsed the system's roots when each client was
    // built, so a plain-HTTP local server cost every launch the root store.
    #[tokio::test]
    async fn a_plain_http_request_loads_no_root_certificates() {
        let (verifier, config) = fresh();
        let client = builder_with(&config).build().unwrap();
        assert!(!verifier.roots_loaded(), "building a client loads no roots");
        let url = plain_server(r#"{"data": []}"#).await;
        let text = client
            .get(format!("{url}/v1/models"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(text, r#"{"data": []}"#);
        assert!(!verifier.roots_loaded(), "plain http loads no roots");
    }

    #[test]
    fn the_roots_are_loaded_when_a_certificate_is_first_checked() {
        let (verifier, _) = fresh();
        let name = ServerName::try_from("example.com").unwrap();
        let garbage = CertificateDer::from(vec![0u8; 16]);
        let first = verifier.verify_server_cert(&garbage, &[], &name, &[], UnixTime::now());
        assert!(first.is_err(), "a garbage certificate is refused");
        assert!(verifier.roots_loaded());
        let second = verifier.verify_server_cert(&garbage, &[], &name, &[], UnixTime::now());
        assert_eq!(first.unwrap_err(), second.unwrap_err());
    }

    #[test]
    fn a_handshake_can_start_without_the_roots() {
        let (verifier, _) = fresh();
        assert!(!verifier.supported_verify_schemes().is_empty());
        assert!(!verifier.roots_loaded());
    }
}

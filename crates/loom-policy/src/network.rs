//! Network calls (web_search, web_fetch, http_request) are their own risk class.
//!
//! They are judged by where they go, not by a command: the domain the tool names in its
//! [`NetworkIntent`]. In supervised mode each new domain asks, and "for this session" grants
//! that kind of access to that domain; read-only mode refuses the network unless the person
//! let searches and page reads through (`[web] read_only = true`; API requests never run
//! there); full-auto runs them. `[web] allowed_domains` lists the APIs `http_request` may
//! call without asking; with a list, any other domain asks in every mode that can ask.
//! Which *addresses* a call may reach is not decided here but by the address guard when
//! it connects (`policy::address_guard`), in every mode.

use std::collections::BTreeSet;

use super::call::{Assessment, NetAccess, NetworkIntent};
use super::commands::Risk;
use super::{Autonomy, Decision};

/// The person's network settings the policy reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkRules {
    /// Whether web_search and web_fetch run in read-only mode.
    pub read_only_web: bool,
    /// Domains `http_request` may call without asking (`api.github.com`, `*.example.com`).
    pub allowed_domains: Vec<String>,
}

impl NetworkRules {
    /// Whether `domain` is in `allowed_domains` (exactly, or under a `*.` entry).
    pub fn allows_domain(&self, domain: &str) -> bool {
        domain_listed(&self.allowed_domains, domain)
    }
}

/// Whether `domain` matches one of `list` (exact, case-insensitive; `*.example.com` covers
/// subdomains of example.com, not example.com itself).
pub fn domain_listed(list: &[String], domain: &str) -> bool {
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    list.iter().any(|entry| {
        let entry = entry.trim().trim_end_matches('.').to_ascii_lowercase();
        match entry.strip_prefix("*.") {
            Some(suffix) => domain
                .strip_suffix(suffix)
                .is_some_and(|head| head.ends_with('.') && head.len() > 1),
            None => entry == domain,
        }
    })
}

/// Domains a person allowed for the rest of the session, per kind of access.
#[derive(Debug, Clone, Default)]
pub struct DomainGrants {
    granted: BTreeSet<(NetAccess, String)>,
}

impl DomainGrants {
    /// Allow `access` to `domain` from now on.
    pub fn grant(&mut self, access: NetAccess, domain: &str) {
        self.granted.insert((access, domain.to_ascii_lowercase()));
    }

    /// Whether `access` to `domain` was granted.
    pub fn covers(&self, access: NetAccess, domain: &str) -> bool {
        self.granted
            .contains(&(access, domain.to_ascii_lowercase()))
    }
}

/// The decision and assessment for a network call under `autonomy`.
pub fn decide(
    name: &str,
    net: &NetworkIntent,
    autonomy: Autonomy,
    rules: &NetworkRules,
    grants: &DomainGrants,
) -> (Decision, Assessment) {
    let read_like = matches!(net.access, NetAccess::Search | NetAccess::Fetch);
    let safe_method = matches!(net.method.as_str(), "GET" | "HEAD" | "OPTIONS");
    // The model's JavaScript in a page can do anything the page can: asked every time.
    let eval = net.access == NetAccess::Browse && net.method == "EVAL";
    let risk = match net.access {
        NetAccess::Search | NetAccess::Fetch => Risk::Low,
        NetAccess::Request if safe_method => Risk::Medium,
        NetAccess::Request => Risk::High,
        NetAccess::Browse if eval => Risk::High,
        NetAccess::Browse => Risk::Medium,
    };
    let what = match net.access {
        NetAccess::Search => format!("sends a search query to {}", net.domain),
        NetAccess::Fetch => format!("reads {}", net.url),
        NetAccess::Request => format!("sends {} {}", net.method, net.url),
        NetAccess::Browse => match net.method.as_str() {
            "OPEN" => format!("opens {} in the browser", net.url),
            "EVAL" => format!("runs JavaScript in the page {}", net.url),
            "INTERACT" => format!("clicks or types in the page {}", net.url),
            _ => format!("reads the page {}", net.url),
        },
    };
    let mut assessment = Assessment::plain(risk, what);
    assessment.domain_grant = (!eval).then(|| (net.access, net.domain.clone()));
    let listed = rules.allows_domain(&net.domain);
    let decision = match autonomy {
        Autonomy::ReadOnly | Autonomy::Plan if read_like && rules.read_only_web => Decision::Allow,
        Autonomy::Plan => Decision::Deny {
            reason: super::plan_mode_refusal(
                name,
                "the network is used only by read-only web tools with [web] read_only = true",
            ),
        },
        Autonomy::ReadOnly if net.access == NetAccess::Browse => Decision::Deny {
            reason: format!("{name} was refused: read-only mode does not drive the browser"),
        },
        Autonomy::ReadOnly => Decision::Deny {
            reason: if read_like {
                format!(
                    "{name} was refused: read-only mode has no network access (set [web] \
                     read_only = true to let web_search and web_fetch run in read-only mode)"
                )
            } else {
                format!("{name} was refused: read-only mode sends no requests to APIs")
            },
        },
        _ if net.access == NetAccess::Request && listed => Decision::Allow,
        _ if net.access == NetAccess::Request && !rules.allowed_domains.is_empty() => {
            Decision::Ask {
                reason: format!(
                    "{} is not in [web] allowed_domains, so this request is approved first",
                    net.domain
                ),
            }
        }
        Autonomy::FullAuto => Decision::Allow,
        Autonomy::Supervised if eval => Decision::Ask {
            reason: "the model's JavaScript runs in the page only when approved, each time".into(),
        },
        Autonomy::Supervised if grants.covers(net.access, &net.domain) => Decision::Allow,
        Autonomy::Supervised => Decision::Ask {
            reason: format!(
                "{} to {} is approved first, once per domain",
                net.access.tool(),
                net.domain
            ),
        },
    };
    (decision, assessment)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(access: NetAccess, domain: &str, method: &str) -> NetworkIntent {
        NetworkIntent {
            access,
            domain: domain.into(),
            method: method.into(),
            url: format!("https://{domain}/x"),
        }
    }

    #[test]
    fn domain_lists_match_exactly_or_by_subdomain() {
        let list = vec!["api.github.com".to_string(), "*.example.com".to_string()];
        assert!(domain_listed(&list, "api.github.com"));
        assert!(domain_listed(&list, "API.GitHub.com."));
        assert!(!domain_listed(&list, "github.com"));
        assert!(!domain_listed(&list, "evilapi.github.com"));
        assert!(domain_listed(&list, "a.example.com"));
        assert!(domain_listed(&list, "a.b.example.com"));
        assert!(!domain_listed(&list, "example.com"));
        assert!(!domain_listed(&list, "badexample.com"));
    }

    #[test]
    fn supervised_asks_per_domain_until_granted() {
        let rules = NetworkRules::default();
        let mut grants = DomainGrants::default();
        let fetch = net(NetAccess::Fetch, "docs.rs", "GET");
        let (d, a) = decide("web_fetch", &fetch, Autonomy::Supervised, &rules, &grants);
        assert!(
            matches!(d, Decision::Ask { ref reason } if reason.contains("docs.rs")),
            "{d:?}"
        );
        assert_eq!(a.domain_grant, Some((NetAccess::Fetch, "docs.rs".into())));
        grants.grant(NetAccess::Fetch, "docs.rs");
        let (d, _) = decide("web_fetch", &fetch, Autonomy::Supervised, &rules, &grants);
        assert_eq!(d, Decision::Allow);
        let other = net(NetAccess::Fetch, "crates.io", "GET");
        let (d, _) = decide("web_fetch", &other, Autonomy::Supervised, &rules, &grants);
        assert!(
            matches!(d, Decision::Ask { .. }),
            "another domain still asks"
        );
        let post = net(NetAccess::Request, "docs.rs", "POST");
        let (d, a) = decide("http_request", &post, Autonomy::Supervised, &rules, &grants);
        assert!(
            matches!(d, Decision::Ask { .. }),
            "a fetch grant is not a request grant"
        );
        assert_eq!(a.risk, Risk::High);
    }

    #[test]
    fn read_only_allows_search_and_fetch_only_when_configured() {
        let grants = DomainGrants::default();
        let search = net(NetAccess::Search, "google.serper.dev", "POST");
        let request = net(NetAccess::Request, "api.github.com", "GET");
        let off = NetworkRules::default();
        let (d, _) = decide("web_search", &search, Autonomy::ReadOnly, &off, &grants);
        assert!(matches!(d, Decision::Deny { ref reason } if reason.contains("read_only = true")));
        let on = NetworkRules {
            read_only_web: true,
            allowed_domains: vec!["api.github.com".into()],
        };
        let (d, _) = decide("web_search", &search, Autonomy::ReadOnly, &on, &grants);
        assert_eq!(d, Decision::Allow);
        let (d, _) = decide("http_request", &request, Autonomy::ReadOnly, &on, &grants);
        assert!(
            matches!(d, Decision::Deny { .. }),
            "API requests never run in read-only"
        );
    }

    #[test]
    fn allowed_domains_run_requests_and_others_ask_even_in_full_auto() {
        let grants = DomainGrants::default();
        let rules = NetworkRules {
            read_only_web: false,
            allowed_domains: vec!["api.github.com".into()],
        };
        let listed = net(NetAccess::Request, "api.github.com", "POST");
        let other = net(NetAccess::Request, "evil.example", "GET");
        for mode in [Autonomy::Supervised, Autonomy::FullAuto] {
            let (d, _) = decide("http_request", &listed, mode, &rules, &grants);
            assert_eq!(d, Decision::Allow, "{mode}");
            let (d, _) = decide("http_request", &other, mode, &rules, &grants);
            assert!(
                matches!(d, Decision::Ask { ref reason } if reason.contains("allowed_domains")),
                "{mode}: {d:?}"
            );
        }
        let none = NetworkRules::default();
        let (d, _) = decide("http_request", &other, Autonomy::FullAuto, &none, &grants);
        assert_eq!(d, Decision::Allow, "no list: full-auto runs it");
    }
}

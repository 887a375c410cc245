//! The address guard: which IP addresses a web tool may connect to.
//!
//! A model that can make Loom fetch a URL could otherwise reach what only this machine can
//! reach: services on 127.0.0.1, the home router, a cloud's metadata endpoint
//! (169.254.169.254, fd00:ec2::254) that hands out credentials. So every address a web
//! call would connect to — an IP written in the URL, or each address a name resolves to —
//! is classified here first, and anything that is not a public unicast address is refused
//! unless the person listed it in `[web] allow_private`.
//!
//! IPv4 addresses hidden inside IPv6 ones (IPv4-mapped `::ffff:127.0.0.1`, IPv4-compatible
//! `::127.0.0.1`, NAT64 `64:ff9b::7f00:1`, 6to4 `2002:7f00:1::`) are judged by the IPv4
//! address they carry; Teredo (`2001::/32`) hides its address obfuscated and is refused as
//! a whole. Pure: no I/O, no DNS; the web tools' client (`tools::web::client` in the root crate) resolves names and asks
//! this module.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// 0.0.0.0/8 or `::` (on Linux, connecting to 0.0.0.0 reaches this machine).
    Unspecified,
    /// 127.0.0.0/8 or `::1`.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16.
    Private,
    /// 100.64.0.0/10, carrier-grade NAT (also Alibaba Cloud's metadata address).
    SharedCgnat,
    /// 169.254/16 or fe80::/10.
    LinkLocal,
    /// A cloud metadata endpoint (169.254.169.254, fd00:ec2::254, 100.100.100.200, …).
    Metadata,
    /// fc00::/7 unique local (and deprecated site-local fec0::/10).
    UniqueLocal,
    /// 224/4 or ff00::/8.
    Multicast,
    /// 240/4, 255.255.255.255, documentation, benchmarking and other special ranges.
    Reserved,
    /// Teredo or NAT64 local-use prefixes, whose real destination cannot be checked.
    Tunnel,
}

impl Blocked {
    /// The class in words, for refusals.
    pub fn describe(self) -> &'static str {
        match self {
            Blocked::Unspecified => "an unspecified address (it reaches this machine)",
            Blocked::Loopback => "a loopback address (this machine)",
            Blocked::Private => "a private network address",
            Blocked::SharedCgnat => "a carrier-grade NAT address",
            Blocked::LinkLocal => "a link-local address",
            Blocked::Metadata => "a cloud metadata endpoint",
            Blocked::UniqueLocal => "a unique-local IPv6 address",
            Blocked::Multicast => "a multicast address",
            Blocked::Reserved => "a reserved or special-purpose address",
            Blocked::Tunnel => "a tunnel address whose destination cannot be checked",
        }
    }
}

/// The metadata endpoints of the big clouds, refused even when a host name is listed in
/// `allow_private` (only listing the address itself opens one).
const METADATA_V4: [Ipv4Addr; 3] = [
    Ipv4Addr::new(169, 254, 169, 254), // AWS, GCP, Azure, OpenStack, DigitalOcean
    Ipv4Addr::new(169, 254, 170, 2),   // AWS ECS task credentials
    Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
];
const METADATA_V6: [Ipv6Addr; 1] = [Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254)];

/// Why `ip` may not be connected to, or `None` for a public unicast address.
pub fn classify(ip: IpAddr) -> Option<Blocked> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Whether `ip` is a cloud metadata endpoint (directly or carried inside IPv6).
pub fn is_metadata(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => METADATA_V4.contains(&v4),
        IpAddr::V6(v6) => {
            METADATA_V6.contains(&v6) || embedded_v4(v6).is_some_and(|v4| METADATA_V4.contains(&v4))
        }
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Blocked> {
    if METADATA_V4.contains(&ip) {
        return Some(Blocked::Metadata);
    }
    let [a, b, c, _] = ip.octets();
    let blocked = match (a, b, c) {
        (0, _, _) => Blocked::Unspecified,
        (10, _, _) => Blocked::Private,
        (127, _, _) => Blocked::Loopback,
        (169, 254, _) => Blocked::LinkLocal,
        (172, 16..=31, _) => Blocked::Private,
        (192, 168, _) => Blocked::Private,
        (100, 64..=127, _) => Blocked::SharedCgnat,
        // IETF protocol assignments, documentation (TEST-NET-1/2/3), 6to4 relay anycast,
        // benchmarking.
        (192, 0, 0) | (192, 0, 2) | (192, 88, 99) | (198, 51, 100) | (203, 0, 113) => {
            Blocked::Reserved
        }
        (198, 18..=19, _) => Blocked::Reserved,
        (224..=239, _, _) => Blocked::Multicast,
        (240..=255, _, _) => Blocked::Reserved,
        _ => return None,
    };
    Some(blocked)
}

/// The IPv4 address an IPv6 address carries, in the forms a connection would really reach
/// it through: IPv4-mapped, IPv4-compatible, NAT64 (well-known prefix) and 6to4.
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated)
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0xffff, 0, _, _] => Some(tail),
        // ::a.b.c.d (IPv4-compatible, deprecated); `::` and `::1` are judged as IPv6.
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 || lo > 1 => Some(tail),
        // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        // 2002:AABB:CCDD::/48 (6to4)
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

fn classify_v6(ip: Ipv6Addr) -> Option<Blocked> {
    if METADATA_V6.contains(&ip) {
        return Some(Blocked::Metadata);
    }
    if ip.is_unspecified() {
        return Some(Blocked::Unspecified);
    }
    if ip.is_loopback() {
        return Some(Blocked::Loopback);
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    let blocked = match s[0] {
        0xfe80..=0xfebf => Blocked::LinkLocal,
        0xfec0..=0xfeff => Blocked::UniqueLocal,
        0xfc00..=0xfdff => Blocked::UniqueLocal,
        0xff00..=0xffff => Blocked::Multicast,
        // Teredo: the destination is obfuscated in the address; refuse it whole.
        0x2001 if s[1] == 0 => Blocked::Tunnel,
        // Documentation 2001:db8::/32.
        0x2001 if s[1] == 0x0db8 => Blocked::Reserved,
        // NAT64 local-use 64:ff9b:1::/48: translated by a local gateway to anything.
        0x0064 if s[1] == 0xff9b && s[2] == 1 => Blocked::Tunnel,
        // Discard-only 100::/64.
        0x0100 if s[1] == 0 && s[2] == 0 && s[3] == 0 => Blocked::Reserved,
        // Anything else below 2000::/3 (global unicast) is not a public destination.
        0x0000..=0x1fff => Blocked::Reserved,
        0x4000..=0xfbff => Blocked::Reserved,
        _ => return None,
    };
    Some(blocked)
}

/// One `allow_private` entry: an address (with or without a port) or a host name (with or
/// without a port) the person lets web tools reach although it is not public.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowEntry {
    /// This exact address, on any port or on one port.
    Addr(IpAddr, Option<u16>),
    /// Whatever this name resolves to (except metadata endpoints), on any port or one port.
    Host(String, Option<u16>),
}

/// The parsed `[web] allow_private` list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowPrivate {
    entries: Vec<AllowEntry>,
}

impl AllowPrivate {
    /// Parse the entries (`127.0.0.1:8080`, `[::1]:8080`, `10.0.0.5`, `intranet.local:443`);
    /// a malformed entry is an error naming it.
    pub fn parse(entries: &[String]) -> Result<AllowPrivate, String> {
        let mut out = Vec::new();
        for raw in entries {
            out.push(parse_entry(raw.trim()).ok_or_else(|| {
                format!(
                    "web.allow_private: {raw:?} is not an address or host, with an optional \
                     port (e.g. \"127.0.0.1:8080\", \"[::1]:3000\", \"intranet.local\")"
                )
            })?);
        }
        Ok(AllowPrivate { entries: out })
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a connection to `ip` on `port`, for a URL whose host was written `host`
    /// (lowercase, no brackets), is listed.
    pub fn allows(&self, host: &str, ip: IpAddr, port: u16) -> bool {
        let ip = canonical(ip);
        self.entries.iter().any(|e| match e {
            AllowEntry::Addr(a, p) => canonical(*a) == ip && p.is_none_or(|p| p == port),
            AllowEntry::Host(h, p) => {
                h.eq_ignore_ascii_case(host) && p.is_none_or(|p| p == port) && !is_metadata(ip)
            }
        })
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is, so `127.0.0.1` in the list
/// covers `::ffff:127.0.0.1`.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 @ IpAddr::V4(_) => v4,
    }
}

fn parse_entry(raw: &str) -> Option<AllowEntry> {
    if raw.is_empty() {
        return None;
    }
    if let Ok(ip) = raw.parse::<IpAddr>() {
        return Some(AllowEntry::Addr(ip, None));
    }
    if let Ok(sa) = raw.parse::<std::net::SocketAddr>() {
        return Some(AllowEntry::Addr(sa.ip(), Some(sa.port())));
    }
    let (host, port) = match raw.rsplit_once(':') {
        Some((h, p)) => (h, Some(p.parse::<u16>().ok()?)),
        None => (raw, None),
    };
    let valid = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_');
    valid.then(|| AllowEntry::Host(host.to_ascii_lowercase(), port))
}

/// The verdict on one address a call would connect to: `Ok` when it may, else why not.
pub fn vet(allow: &AllowPrivate, host: &str, ip: IpAddr, port: u16) -> Result<(), Blocked> {
    match classify(ip) {
        None => Ok(()),
        Some(_) if allow.allows(host, ip, port) => Ok(()),
        Some(b) => Err(b),
    }
}

#[cfg(test)]
#[path = "address_guard_tests.rs"]
mod tests;

use super::*;
use proptest::prelude::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn address_classes_table() {
    let table: &[(&str, Option<Blocked>)] = &[
        ("0.0.0.0", Some(Blocked::Unspecified)),
        ("0.1.2.3", Some(Blocked::Unspecified)),
        ("10.0.0.1", Some(Blocked::Private)),
        ("10.255.255.255", Some(Blocked::Private)),
        ("127.0.0.1", Some(Blocked::Loopback)),
        ("127.1.2.3", Some(Blocked::Loopback)),
        ("169.254.1.1", Some(Blocked::LinkLocal)),
        ("169.254.169.254", Some(Blocked::Metadata)),
        ("169.254.170.2", Some(Blocked::Metadata)),
        ("100.100.100.200", Some(Blocked::Metadata)),
        ("172.16.0.1", Some(Blocked::Private)),
        ("172.31.255.255", Some(Blocked::Private)),
        ("172.32.0.1", None),
        ("172.15.255.255", None),
        ("192.168.1.1", Some(Blocked::Private)),
        ("100.64.0.1", Some(Blocked::SharedCgnat)),
        ("100.127.255.255", Some(Blocked::SharedCgnat)),
        ("100.128.0.1", None),
        ("192.0.0.170", Some(Blocked::Reserved)),
        ("192.0.2.1", Some(Blocked::Reserved)),
        ("198.18.0.1", Some(Blocked::Reserved)),
        ("198.51.100.7", Some(Blocked::Reserved)),
        ("203.0.113.9", Some(Blocked::Reserved)),
        ("224.0.0.1", Some(Blocked::Multicast)),
        ("239.255.255.250", Some(Blocked::Multicast)),
        ("240.0.0.1", Some(Blocked::Reserved)),
        ("255.255.255.255", Some(Blocked::Reserved)),
        ("8.8.8.8", None),
        ("1.1.1.1", None),
        ("93.184.216.34", None),
        ("::", Some(Blocked::Unspecified)),
        ("::1", Some(Blocked::Loopback)),
        ("::ffff:127.0.0.1", Some(Blocked::Loopback)),
        ("::ffff:10.1.2.3", Some(Blocked::Private)),
        ("::ffff:169.254.169.254", Some(Blocked::Metadata)),
        ("::ffff:8.8.8.8", None),
        ("::127.0.0.1", Some(Blocked::Loopback)),
        ("::ffff:0:127.0.0.1", Some(Blocked::Loopback)),
        ("64:ff9b::7f00:1", Some(Blocked::Loopback)),
        ("64:ff9b::a9fe:a9fe", Some(Blocked::Metadata)),
        ("64:ff9b::808:808", None),
        ("64:ff9b:1::1", Some(Blocked::Tunnel)),
        ("2002:7f00:1::1", Some(Blocked::Loopback)),
        ("2002:c0a8:101::", Some(Blocked::Private)),
        ("2002:808:808::1", None),
        (
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            Some(Blocked::Tunnel),
        ),
        ("2001:db8::1", Some(Blocked::Reserved)),
        ("fc00::1", Some(Blocked::UniqueLocal)),
        ("fd12:3456::1", Some(Blocked::UniqueLocal)),
        ("fd00:ec2::254", Some(Blocked::Metadata)),
        ("fe80::1", Some(Blocked::LinkLocal)),
        ("fec0::1", Some(Blocked::UniqueLocal)),
        ("ff02::1", Some(Blocked::Multicast)),
        ("100::1", Some(Blocked::Reserved)),
        ("2606:4700:4700::1111", None),
        ("2a00:1450:4001:80b::200e", None),
    ];
    for (addr, expected) in table {
        assert_eq!(classify(ip(addr)), *expected, "{addr}");
    }
}

#[test]
fn allow_private_entries() {
    let allow = AllowPrivate::parse(&[
        "127.0.0.1:8080".into(),
        "[::1]:3000".into(),
        "10.0.0.5".into(),
        "intranet.local".into(),
        "LocalHost:9000".into(),
    ])
    .unwrap();
    assert!(allow.allows("127.0.0.1", ip("127.0.0.1"), 8080));
    assert!(
        allow.allows("x", ip("::ffff:127.0.0.1"), 8080),
        "a mapped address is the address it maps"
    );
    assert!(
        !allow.allows("127.0.0.1", ip("127.0.0.1"), 8081),
        "other port"
    );
    assert!(allow.allows("::1", ip("::1"), 3000));
    assert!(allow.allows("10.0.0.5", ip("10.0.0.5"), 1));
    assert!(allow.allows("intranet.local", ip("192.168.0.9"), 443));
    assert!(
        !allow.allows("intranet.local", ip("169.254.169.254"), 80),
        "a host entry never opens a metadata endpoint"
    );
    assert!(allow.allows("localhost", ip("127.0.0.1"), 9000));
    assert!(!allow.allows("localhost", ip("127.0.0.1"), 9001));
    assert!(!allow.allows("other.local", ip("192.168.0.9"), 443));
    assert_eq!(vet(&allow, "h", ip("127.0.0.1"), 8080), Ok(()));
    assert_eq!(
        vet(&allow, "h", ip("127.0.0.2"), 8080),
        Err(Blocked::Loopback)
    );
    for bad in ["", "a b", "host:99999", "http://x", "1.2.3.4:"] {
        assert!(AllowPrivate::parse(&[bad.into()]).is_err(), "{bad:?}");
    }
    let meta = AllowPrivate::parse(&["169.254.169.254:80".into()]).unwrap();
    assert!(
        meta.allows("169.254.169.254", ip("169.254.169.254"), 80),
        "listing the metadata address itself opens it"
    );
}

fn blocked_v4() -> impl Strategy<Value = Ipv4Addr> {
    prop_oneof![
        any::<[u8; 3]>().prop_map(|[b, c, d]| Ipv4Addr::new(10, b, c, d)),
        any::<[u8; 3]>().prop_map(|[b, c, d]| Ipv4Addr::new(127, b, c, d)),
        any::<[u8; 2]>().prop_map(|[c, d]| Ipv4Addr::new(169, 254, c, d)),
        (16u8..32, any::<[u8; 2]>()).prop_map(|(b, [c, d])| Ipv4Addr::new(172, b, c, d)),
        any::<[u8; 2]>().prop_map(|[c, d]| Ipv4Addr::new(192, 168, c, d)),
        (64u8..128, any::<[u8; 2]>()).prop_map(|(b, [c, d])| Ipv4Addr::new(100, b, c, d)),
        (224u8..=255, any::<[u8; 3]>()).prop_map(|(a, [b, c, d])| Ipv4Addr::new(a, b, c, d)),
        any::<[u8; 3]>().prop_map(|[b, c, d]| Ipv4Addr::new(0, b, c, d)),
    ]
}

fn six_forms(v4: Ipv4Addr) -> Vec<Ipv6Addr> {
    let [a, b, c, d] = v4.octets();
    let hi = u16::from_be_bytes([a, b]);
    let lo = u16::from_be_bytes([c, d]);
    vec![
        v4.to_ipv6_mapped(),
        Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, hi, lo),
        Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo),
        Ipv6Addr::new(0x2002, hi, lo, 0, 0, 0, 0, 1),
    ]
}

proptest! {
    #[test]
    fn a_blocked_ipv4_address_is_blocked_in_every_ipv6_disguise(v4 in blocked_v4()) {
        prop_assert!(classify(IpAddr::V4(v4)).is_some());
        for v6 in six_forms(v4) {
            prop_assert!(classify(IpAddr::V6(v6)).is_some(), "{} hides {}", v6, v4);
        }
    }

    #[test]
    fn ipv6_disguises_are_judged_like_the_ipv4_address(raw in any::<u32>()) {
        let v4 = Ipv4Addr::from(raw);
        let direct = classify(IpAddr::V4(v4)).is_some();
        for v6 in six_forms(v4) {
            prop_assert_eq!(classify(IpAddr::V6(v6)).is_some(), direct, "{} vs {}", v6, v4);
        }
    }

    #[test]
    fn unique_local_and_link_local_ipv6_are_always_blocked(segs in any::<[u16; 8]>()) {
        let mut ula = segs;
        ula[0] = 0xfc00 | (segs[0] & 0x01ff);
        prop_assert!(classify(IpAddr::V6(Ipv6Addr::from(ula))).is_some());
        let mut ll = segs;
        ll[0] = 0xfe80 | (segs[0] & 0x003f);
        prop_assert!(classify(IpAddr::V6(Ipv6Addr::from(ll))).is_some());
    }

    #[test]
    fn an_empty_allow_list_allows_only_public_addresses(raw in any::<u128>(), port in any::<u16>()) {
        let ip = IpAddr::V6(Ipv6Addr::from(raw));
        let allow = AllowPrivate::default();
        prop_assert_eq!(vet(&allow, "h", ip, port).is_ok(), classify(ip).is_none());
    }
}

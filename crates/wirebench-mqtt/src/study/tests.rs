//! Tests of the `[mqtt]` part's options and validation, and of the standalone runs' checks and
//! size table.

use std::path::Path;

use super::*;
use wirebench_core::sections::mqtt::Figure;

#[test]
fn study_opts_default_and_unknown_keys() {
    let o: StudyOpts = serde_json::from_str(r#"{"messages": 10}"#).unwrap();
    assert_eq!(o.messages, 10);
    assert_eq!(o.fields, FIELD_COUNTS.to_vec());
    assert!(serde_json::from_str::<StudyOpts>(r#"{"mesages": 10}"#).is_err());
}

fn bad(r: Result<impl std::fmt::Debug, PartError>) -> String {
    match r {
        Err(PartError::BadInput(m)) => m,
        other => panic!("expected bad input, got {other:?}"),
    }
}

#[test]
fn validation_names_the_option() {
    let ok = StudyOpts::default();
    assert!(MqttPart::validate(&ok).is_ok());
    let m = bad(MqttPart::validate(&StudyOpts { reps: 0, ..ok.clone() }));
    assert_eq!(m, "[mqtt] reps = 0: expected 1..=100");
    let m = bad(MqttPart::validate(&StudyOpts { rtt_reps: 101, ..ok.clone() }));
    assert_eq!(m, "[mqtt] rtt_reps = 101: expected 0 (= reps) or 1..=100");
    let m = bad(MqttPart::validate(&StudyOpts { max_reps: 2, ..ok.clone() }));
    assert_eq!(m, "[mqtt] max_reps = 2: expected 0 or reps..=100 (3..=100)");
    let m = bad(MqttPart::validate(&StudyOpts { min_run_s: 60.0, ..ok.clone() }));
    assert!(m.starts_with("[mqtt] min_run_s = 60 must be below timeout_s = 60"), "{m}");
    let m = bad(MqttPart::validate(&StudyOpts { min_run_s: -1.0, ..ok.clone() }));
    assert_eq!(m, "[mqtt] min_run_s = -1: expected seconds in [0, 600]");
    let m = bad(MqttPart::validate(&StudyOpts { ci_target: 1.0, ..ok.clone() }));
    assert_eq!(m, "[mqtt] ci_target = 1: expected a fraction in [0, 1)");
    let m = bad(MqttPart::validate(&StudyOpts { budget_s: f64::INFINITY, ..ok.clone() }));
    assert_eq!(m, "[mqtt] budget_s = inf: expected seconds in [0, 86400]");
    assert!(MqttPart::validate(&StudyOpts {
        reps: 6,
        max_reps: 12,
        min_run_s: 0.5,
        ci_target: 0.05,
        budget_s: 60.0,
        ..ok.clone()
    })
    .is_ok());
    let m = bad(MqttPart::validate(&StudyOpts { timeout_s: f64::NAN, ..ok.clone() }));
    assert!(m.starts_with("[mqtt] timeout_s = NaN"), "{m}");
    let m = bad(MqttPart::validate(&StudyOpts { qos: vec![2], ..ok.clone() }));
    assert!(m.starts_with("[mqtt] qos: "), "{m}");
    let m = bad(MqttPart::validate(&StudyOpts { transport_formats: vec!["bytes:0".into()], ..ok.clone() }));
    assert_eq!(m, "[mqtt] transport_formats: --format \"bytes:0\": bytes:N needs N in 1..=1048576");
    let m = bad(MqttPart::validate(&StudyOpts { size_formats: vec!["xml".into()], ..ok.clone() }));
    assert!(m.starts_with("--format \"xml\": unknown format (known: uadp, "), "{m}");
    let m = bad(MqttPart::validate(&StudyOpts { fields: vec![], ..ok.clone() }));
    assert_eq!(m, "fields: give at least one field count");
    let m = bad(MqttPart::validate(&StudyOpts { transport_fields: 1001, ..ok.clone() }));
    assert_eq!(m, "fields: 1001 is out of range (1..=1000)");
    for d in [-1.0, f64::NAN, 3600.5] {
        let m = bad(MqttPart::validate(&StudyOpts { drain_s: d, ..ok.clone() }));
        assert!(m.starts_with(&format!("[mqtt] drain_s = {d}: expected seconds in [0, 3600]")), "{m}");
    }
    // Credentials and TLS files need a broker given by URL; the TLS files must exist.
    let m = bad(MqttPart::validate(&StudyOpts { username: Some("u".into()), ..ok.clone() }));
    assert!(m.starts_with("[mqtt] username, ca_file, client_cert and client_key apply to brokers given by URL"), "{m}");
    let url = StudyOpts { brokers: vec!["embedded".into(), "mqtts://127.0.0.1:8883".into()], ..ok.clone() };
    let m = bad(MqttPart::validate(&StudyOpts { ca_file: Some("/nonexistent/ca.pem".into()), ..url.clone() }));
    assert!(m.starts_with("[mqtt] brokers: ") && m.contains("/nonexistent/ca.pem"), "{m}");
    let plain = StudyOpts { brokers: vec!["embedded".into(), "mqtt://127.0.0.1:1883".into()], ..ok.clone() };
    assert!(MqttPart::validate(&StudyOpts { username: Some("u".into()), ..plain }).is_ok());
    let m = bad(MqttPart::validate(&url));
    assert!(m.contains("ca-file"), "{m}");
}

#[test]
fn study_files_name_credentials_and_drain() {
    let o: StudyOpts = toml::from_str(
        "brokers = [\"mqtts://broker.example:8883\"]\nusername = \"meter\"\nca_file = \"ca.pem\"\nclient_cert = \"c.pem\"\nclient_key = \"k.pem\"\ndrain_s = 5.0\n",
    )
    .unwrap();
    assert_eq!((o.username.as_deref(), o.drain_s), (Some("meter"), 5.0));
    assert_eq!(o.credentials_for("mqtts://broker.example:8883").tls.client_key.as_deref(), Some(Path::new("k.pem")));
    assert!(!o.credentials_for("embedded").any());
    // A password is not a study key (it would be shared with the file).
    assert!(toml::from_str::<StudyOpts>("password = \"x\"")
        .unwrap_err()
        .to_string()
        .contains("unknown field `password`"));
}

#[test]
fn transport_options_are_checked_before_connecting() {
    let ok = TransportOpts {
        broker: "mqtt://127.0.0.1:1".into(),
        qos: "1".into(),
        format: "uadp".into(),
        fields: 3,
        message: None,
        count: None,
        timeout_s: 60.0,
        baseline: false,
        reps: 1,
        topic: None,
        rtt: None,
        credentials: Credentials::default(),
        drain_s: 2.0,
        payloads: None,
    };
    let plan = ok.plan().unwrap();
    assert_eq!(
        (plan.payload.label.as_str(), plan.payload.bytes.len(), plan.qos),
        ("uadp, 3 fields", 54, Qos::AtLeastOnce)
    );
    let synthetic = TransportOpts { format: "bytes:50".into(), ..ok.clone() }.plan().unwrap();
    assert_eq!(
        (synthetic.payload.format.as_str(), synthetic.payload.fields, synthetic.payload.bytes.len()),
        ("synthetic", None, 50)
    );
    assert!(bad(TransportOpts { qos: "2".into(), ..ok.clone() }.plan()).starts_with("--qos \"2\""));
    assert!(bad(TransportOpts { timeout_s: 0.0, ..ok.clone() }.plan()).starts_with("--timeout 0"));
    assert!(bad(TransportOpts { reps: 101, ..ok.clone() }.plan()).starts_with("--reps 101"));
    assert!(bad(TransportOpts { topic: Some("a/#".into()), ..ok.clone() }.plan()).starts_with("invalid topic \"a/#\""));
    let missing = std::env::temp_dir().join(format!("wb-mqtt-missing-{}.uadp", std::process::id()));
    assert!(bad(TransportOpts { message: Some(missing), ..ok.clone() }.plan()).contains("wb-mqtt-missing-"));
    for drain in [-1.0, f64::NAN, f64::INFINITY, 3600.5] {
        assert!(bad(TransportOpts { drain_s: drain, ..ok.clone() }.plan()).starts_with(&format!("--drain {drain}")));
    }
    assert!(TransportOpts { drain_s: 0.0, ..ok.clone() }.plan().is_ok());
    // Credentials and TLS files are checked before connecting, and name the option.
    let creds =
        |c: Credentials, broker: &str| TransportOpts { credentials: c, broker: broker.into(), ..ok.clone() }.plan();
    let user = Credentials { username: Some("u".into()), ..Credentials::default() };
    assert!(bad(creds(user.clone(), "embedded")).contains("need a broker URL"));
    assert!(bad(creds(user.clone(), "mqtt://a@127.0.0.1:1")).contains("either in --broker or with --username"));
    assert!(bad(creds(Credentials::default(), "mqtts://127.0.0.1:1")).contains("--ca-file"));
    let m = bad(creds(Credentials::default(), "mqtt://u:s3cret@127.0.0.1:x"));
    assert!(m.starts_with("--broker: invalid broker URL \"mqtt://u:***@127.0.0.1:x\"") && !m.contains("s3cret"), "{m}");
    let missing = Credentials {
        tls: crate::TlsFiles { ca_file: Some("/nonexistent/ca.pem".into()), ..Default::default() },
        ..Default::default()
    };
    assert_eq!(bad(creds(missing, "mqtts://127.0.0.1:1")), "--ca-file /nonexistent/ca.pem: no such file or directory");
    // Connecting is the run's business (exit 1, not bad input); nothing listens on port 1.
    match plan.run() {
        Err(PartError::Failed(m)) => assert!(m.starts_with("cannot connect to mqtt://127.0.0.1:1"), "{m}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn sizes_beside_the_thesis() {
    let s = sizes_section(&["uadp".into(), "uadp-json-dv".into()], &[3, 5], false).unwrap();
    assert_eq!(
        s.sizes.iter().map(|r| (r.format.as_str(), r.fields, r.bytes)).filter(|r| r.0 == "uadp").collect::<Vec<_>>(),
        vec![("uadp", 3, 54), ("uadp", 5, 64)]
    );
    assert!(s.codec.is_empty() && s.layout.is_some());
    assert!(s.sizes.iter().all(|r| r.round_trip && r.hex.is_some() == (r.format == "uadp")));
    let row = |what: &str| s.comparison.iter().find(|r| r.what == what).unwrap_or_else(|| panic!("no {what}"));
    // Counts stay counts; a field count not measured has no figure of ours.
    assert_eq!(
        (row("UADP size, 3 fields").thesis, row("UADP size, 3 fields").ours),
        (Figure::Count(48), Some(Figure::Count(54)))
    );
    assert_eq!(row("UADP size, 1 field").ours, None);
    assert_eq!(row("UADP bytes/message, 3 fields (throughput table)").ours, Some(Figure::Count(54)));
    assert_eq!(s.published.as_ref().map(|p| p.sizes.rows.len()), Some(4));
    // Written as results files have it: keys sorted, counts as integers, absent as null
    // (an interval that does not exist is left out, as in files written before them).
    let v = serde_json::to_string(&s.comparison[0]).unwrap();
    assert!(
        v.contains(r#","ours":null,"source":"#)
            && v.ends_with(r#","thesis":38,"unit":"B","what":"UADP size, 1 field"}"#),
        "{v}"
    );
    assert!(bad(sizes_section(&["xml".into()], &[3], false)).contains("unknown format"));
    assert_eq!(bad(sizes_section(&[], &[0], false)), "fields: 0 is out of range (1..=1000)");
}

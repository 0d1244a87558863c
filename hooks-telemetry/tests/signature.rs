//! The signer and verifier against each other and against independent computations
//! (RFC 4231 test vectors, Python's `hmac`), plus every verifier rejection and `Secret`
//! expansion and redaction.

use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hookrail_telemetry::signature::{
    DEFAULT_TOLERANCE, Secret, SecretError, Verifier, VerifyError, sign, verify_signature,
};

const NOW_TS: u64 = 1_767_225_600; // 2026-01-01T00:00:00Z

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW_TS)
}

fn envelope(ts: u64) -> String {
    format!(
        r#"{{"id":"00ff","event":"pre_tool_use","timestamp":{ts},"seq":3,"data":{{"tool":"bash"}}}}"#
    )
}

/// RFC 4231 §4: HMAC-SHA256 test cases 1, 2, 3, 6 and 7.
#[test]
fn signer_matches_rfc4231_vectors() {
    let cases: [(Vec<u8>, Vec<u8>, &str); 5] = [
        (
            vec![0x0b; 20],
            b"Hi There".to_vec(),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        ),
        (
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        ),
        (
            vec![0xaa; 20],
            vec![0xdd; 50],
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
        ),
        (
            vec![0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        ),
        (
            vec![0xaa; 131],
            b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".to_vec(),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
        ),
    ];
    for (key, data, expected) in cases {
        let secret = Secret::new(key).unwrap();
        assert_eq!(sign(&secret, &data), format!("sha256={expected}"));
        verify_signature(&secret, &data, &format!("sha256={expected}")).unwrap();
    }
}

/// The signature as Python's standard library computes it, from a process we do not control.
#[test]
fn signer_matches_python_hmac() {
    let secret = "wh-secret-\u{e9}-42";
    let body = envelope(NOW_TS);
    let script = "import hmac,hashlib,sys; k=sys.argv[1].encode(); b=sys.argv[2].encode(); \
                  print('sha256='+hmac.new(k,b,hashlib.sha256).hexdigest())";
    let output = match Command::new("python3")
        .args(["-c", script, secret, &body])
        .output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("python3 not found; skipping the cross-check");
            return;
        }
        Err(e) => panic!("python3: {e}"),
    };
    assert!(output.status.success(), "{output:?}");
    let python = String::from_utf8(output.stdout).unwrap();
    let ours = sign(&Secret::new(secret).unwrap(), body.as_bytes());
    assert_eq!(python.trim(), ours);
    // And the verifier accepts Python's signature.
    let verified = Verifier::new(Secret::new(secret).unwrap())
        .verify(body.as_bytes(), python.trim(), &NOW_TS.to_string(), now())
        .unwrap();
    assert_eq!(verified.timestamp, NOW_TS);
    assert_eq!(verified.id(), Some("00ff"));
    assert_eq!(verified.event(), Some("pre_tool_use"));
    assert_eq!(verified.seq(), Some(3));
    assert_eq!(verified.data().unwrap()["tool"], "bash");
}

#[test]
fn signature_is_lowercase_hex_of_32_bytes() {
    let s = sign(&Secret::new("k").unwrap(), b"body");
    let hex = s.strip_prefix("sha256=").unwrap();
    assert_eq!(hex.len(), 64);
    assert!(hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
}

#[test]
fn verifier_accepts_what_the_signer_signs() {
    let secret = Secret::new("k").unwrap();
    let body = envelope(NOW_TS);
    let sig = sign(&secret, body.as_bytes());
    let v = Verifier::new(secret);
    assert_eq!(v.tolerance(), DEFAULT_TOLERANCE);
    v.verify(body.as_bytes(), &sig, &NOW_TS.to_string(), now())
        .unwrap();
    // Uppercase hex and surrounding whitespace are accepted too.
    let upper = format!("sha256={}", sig["sha256=".len()..].to_uppercase());
    v.verify(
        body.as_bytes(),
        &format!(" {upper} "),
        &NOW_TS.to_string(),
        now(),
    )
    .unwrap();
    // Clock skew within the tolerance, both ways.
    let tol = DEFAULT_TOLERANCE.as_secs();
    for skew in [tol, 0] {
        v.verify(
            body.as_bytes(),
            &sig,
            &NOW_TS.to_string(),
            now() + Duration::from_secs(skew),
        )
        .unwrap();
    }
    v.verify(
        body.as_bytes(),
        &sig,
        &NOW_TS.to_string(),
        now() - Duration::from_secs(tol),
    )
    .unwrap();
}

#[test]
fn verifier_rejects_each_failed_check() {
    let secret = Secret::new("k").unwrap();
    let v = Verifier::new(secret.clone()).with_tolerance(Duration::from_secs(60));
    let body = envelope(NOW_TS);
    let sig = sign(&secret, body.as_bytes());
    let ts = NOW_TS.to_string();

    // Malformed signature headers.
    for bad in [
        "",
        "sha256=",
        "sha1=abcd",
        "sha256=zz",
        "sha256=abc",
        &sig[7..],
    ] {
        let err = v.verify(body.as_bytes(), bad, &ts, now()).unwrap_err();
        if bad == "sha256=" {
            // An empty digest is well-formed hex and simply does not match.
            assert_eq!(err, VerifyError::Mismatch, "{bad:?}");
        } else {
            assert_eq!(err, VerifyError::MalformedSignature, "{bad:?}");
        }
    }
    // Wrong secret, modified body, truncated signature.
    let other = sign(&Secret::new("other").unwrap(), body.as_bytes());
    assert_eq!(
        v.verify(body.as_bytes(), &other, &ts, now()),
        Err(VerifyError::Mismatch)
    );
    let modified = body.replace("bash", "bask");
    assert_eq!(
        v.verify(modified.as_bytes(), &sig, &ts, now()),
        Err(VerifyError::Mismatch)
    );
    assert_eq!(
        v.verify(body.as_bytes(), &sig[..sig.len() - 2], &ts, now()),
        Err(VerifyError::Mismatch)
    );
    // Timestamp header not a number.
    assert_eq!(
        v.verify(body.as_bytes(), &sig, "yesterday", now()),
        Err(VerifyError::MalformedTimestamp)
    );
    // Too old, and from the future.
    let err = v
        .verify(body.as_bytes(), &sig, &ts, now() + Duration::from_secs(61))
        .unwrap_err();
    assert!(
        matches!(err, VerifyError::OutsideTolerance { age_secs: 61, .. }),
        "{err:?}"
    );
    let err = v
        .verify(body.as_bytes(), &sig, &ts, now() - Duration::from_secs(61))
        .unwrap_err();
    assert!(
        matches!(err, VerifyError::OutsideTolerance { age_secs: -61, .. }),
        "{err:?}"
    );
    // Replay: an old, correctly signed body with a fresh header.
    let old_body = envelope(NOW_TS - 3600);
    let old_sig = sign(&secret, old_body.as_bytes());
    assert_eq!(
        v.verify(old_body.as_bytes(), &old_sig, &ts, now()),
        Err(VerifyError::TimestampMismatch {
            header: NOW_TS,
            body: NOW_TS - 3600
        })
    );
    // Signed, but not an envelope.
    for not_envelope in [
        "not json",
        r#"{"timestamp":"1767225600"}"#,
        "[]",
        r#"{"id":"x"}"#,
    ] {
        let sig = sign(&secret, not_envelope.as_bytes());
        assert_eq!(
            v.verify(not_envelope.as_bytes(), &sig, &ts, now()),
            Err(VerifyError::MalformedEnvelope),
            "{not_envelope}"
        );
    }
}

#[test]
fn errors_and_debug_never_show_the_secret() {
    let key = "sup3r-s3cret-value";
    let secret = Secret::new(key).unwrap();
    assert_eq!(format!("{secret:?}"), "Secret(***)");
    assert_eq!(format!("{secret}"), "[redacted]");
    let v = Verifier::new(secret.clone());
    assert!(!format!("{v:?}").contains(key));
    let body = envelope(NOW_TS);
    let sig = sign(&secret, body.as_bytes());
    let errors = [
        v.verify(b"x", &sig, "1", now()).unwrap_err(),
        v.verify(body.as_bytes(), "nope", "1", now()).unwrap_err(),
        v.verify(body.as_bytes(), &sig, "1", now()).unwrap_err(),
        v.verify(body.as_bytes(), &sig, "x", now()).unwrap_err(),
    ];
    for e in errors {
        for text in [e.to_string(), format!("{e:?}")] {
            assert!(!text.contains(key), "{text}");
            assert!(
                !text.contains(&sig[7..]),
                "the received signature leaks: {text}"
            );
        }
    }
}

#[test]
fn secret_expansion() {
    let env = |name: &str| -> Result<Option<String>, SecretError> {
        Ok(match name {
            "WEBHOOK_SECRET" => Some("s3cr3t".into()),
            "A_1" => Some("x".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        })
    };
    let expand = |t: &str| Secret::expand_with(t, env);
    assert_eq!(expand("${WEBHOOK_SECRET}").unwrap().expose(), b"s3cr3t");
    assert_eq!(
        expand("pre-${A_1}-${WEBHOOK_SECRET}").unwrap().expose(),
        b"pre-x-s3cr3t"
    );
    assert_eq!(expand("literal").unwrap().expose(), b"literal");
    // `$$` is two dollars (no escape), so `$${A_1}` is a `$` and an expansion.
    assert_eq!(expand("a$$b$c$").unwrap().expose(), b"a$$b$c$");
    assert_eq!(expand("$${A_1}").unwrap().expose(), b"$x");
    assert_eq!(
        expand("$${NOT_A_VAR}").unwrap_err(),
        SecretError::Unset {
            name: "NOT_A_VAR".into()
        }
    );

    let err = expand("k-${MISSING_VAR}").unwrap_err();
    assert_eq!(
        err,
        SecretError::Unset {
            name: "MISSING_VAR".into()
        }
    );
    assert!(err.to_string().contains("MISSING_VAR"));
    assert_eq!(
        expand("ab${OPEN").unwrap_err(),
        SecretError::Malformed { offset: 2 }
    );
    assert_eq!(
        expand("${1X}").unwrap_err(),
        SecretError::Malformed { offset: 0 }
    );
    assert_eq!(
        expand("${}").unwrap_err(),
        SecretError::Malformed { offset: 0 }
    );
    assert_eq!(
        expand("$$x${A B}").unwrap_err(),
        SecretError::Malformed { offset: 3 }
    );
    assert_eq!(expand("${EMPTY}").unwrap_err(), SecretError::Empty);
    assert_eq!(expand("").unwrap_err(), SecretError::Empty);

    // An error never carries a value, even one that was already expanded.
    let err = expand("${WEBHOOK_SECRET}${MISSING_VAR}").unwrap_err();
    assert!(!err.to_string().contains("s3cr3t"));
    assert!(!format!("{err:?}").contains("s3cr3t"));
}

#[test]
fn secret_expansion_from_the_process_environment() {
    // PATH is set wherever tests run; its value is not a secret, but it shows the lookup works.
    let path = std::env::var("PATH").unwrap();
    assert_eq!(Secret::expand("${PATH}").unwrap().expose(), path.as_bytes());
    let err = Secret::expand("${HOOKS_TELEMETRY_TEST_SURELY_UNSET_7f3a}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "secret template: environment variable `HOOKS_TELEMETRY_TEST_SURELY_UNSET_7f3a` is not set"
    );
}

/// The template rule of `Secret::expand`, case by case: the same cases as hookrail-config's
/// `expand_env` (its doc example and its `expand_env_rules` test), so both rules stay one.
#[test]
fn secret_expansion_follows_the_header_template_rule() {
    let env = |name: &str| -> Result<Option<String>, SecretError> {
        Ok(match name {
            "A" => Some("1".to_owned()),
            "B_2" => Some("${A}".to_owned()),
            "EMPTY" => Some(String::new()),
            "TOKEN" => Some("abc".to_owned()),
            _ => None,
        })
    };
    let expand = |t: &str| Secret::expand_with(t, env).map(|s| s.expose().to_vec());
    for (template, expected) in [
        ("plain", "plain"),
        ("${A}", "1"),
        ("x${A}y${A}z", "x1y1z"),
        ("${A}${B_2}", "1${A}"), // values are not expanded again
        ("[${EMPTY}]", "[]"),    // an empty variable inside a non-empty key is fine
        ("$A $$ $", "$A $$ $"),  // a `$` not followed by `{` is an ordinary character
        ("$${A}", "$1"),         // no escape: `$$` is two dollars
        ("é${A}ü", "é1ü"),
        ("Bearer ${TOKEN}", "Bearer abc"),
        ("pa$$word $TOKEN", "pa$$word $TOKEN"),
        ("trailing$", "trailing$"),
    ] {
        assert_eq!(
            expand(template).expect(template),
            expected.as_bytes(),
            "{template}"
        );
    }
    for (template, offset) in [
        ("${A", 0),
        ("ok ${}", 3),
        ("${A} ${A:-x}", 5),
        ("${1A}", 0),
        ("$$${A", 2),
    ] {
        assert_eq!(
            expand(template).unwrap_err(),
            SecretError::Malformed { offset },
            "{template}"
        );
    }
    for (template, name) in [("${A}${MISSING}", "MISSING"), ("${NOPE}", "NOPE")] {
        assert_eq!(
            expand(template).unwrap_err(),
            SecretError::Unset { name: name.into() },
            "{template}"
        );
    }
    // Where `expand_env` returns an empty value, a secret is refused: an empty key signs nothing.
    for template in ["", "${EMPTY}", "${EMPTY}${EMPTY}"] {
        assert_eq!(
            expand(template).unwrap_err(),
            SecretError::Empty,
            "{template}"
        );
    }
}

#[test]
fn an_empty_key_is_refused() {
    assert_eq!(Secret::new("").unwrap_err(), SecretError::Empty);
    assert_eq!(Secret::new(Vec::new()).unwrap_err(), SecretError::Empty);
    assert_eq!(SecretError::Empty.to_string(), "secret: the key is empty");
    // One byte is a key (weak, but not one anyone can compute without knowing it).
    assert_eq!(Secret::new([0u8]).unwrap().expose(), [0u8]);
}

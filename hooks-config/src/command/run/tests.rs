use super::{Capture, expand_placeholders};
use proptest::prelude::*;

#[test]
fn exec_form_placeholders_expand_to_the_project_and_plugin_roots() {
    let expand = |a| expand_placeholders(a, "/p", Some("/plug"));
    assert_eq!(expand("${CLAUDE_PROJECT_DIR}/h.sh"), "/p/h.sh");
    assert_eq!(expand("$CLAUDE_PROJECT_DIR/h.sh"), "/p/h.sh");
    assert_eq!(expand("${CLAUDE_PLUGIN_ROOT}/x"), "/plug/x");
    // A longer name is another variable; nothing else is expanded.
    assert_eq!(expand("$CLAUDE_PROJECT_DIRX"), "$CLAUDE_PROJECT_DIRX");
    assert_eq!(expand("$HOME/${OTHER}"), "$HOME/${OTHER}");
    // Without a plugin root, its placeholder stays as written.
    assert_eq!(
        expand_placeholders("${CLAUDE_PLUGIN_ROOT}", "/p", None),
        "${CLAUDE_PLUGIN_ROOT}"
    );
}

fn capture(chunks: &[Vec<u8>], cap: usize) -> (String, u64) {
    let mut capture = Capture::new(cap);
    for chunk in chunks {
        capture.push(chunk);
    }
    capture.finish()
}

/// Bytes rich in multibyte characters, cut characters and invalid sequences.
fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(b"a".to_vec()),
            Just("é".as_bytes().to_vec()),
            Just("€".as_bytes().to_vec()),
            Just("😀".as_bytes().to_vec()),
            Just(vec![0xF0, 0x9F]),
            Just(vec![0xE2, 0x82]),
            Just(vec![0xFF]),
            Just(vec![0x80]),
            Just(vec![0xED, 0xA0, 0x80]),
            any::<u8>().prop_map(|b| vec![b]),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    /// Streaming decoding with a cap is the capped lossy decoding of the whole stream,
    /// wherever the reads cut it, and the dropped bytes are counted exactly when something
    /// was cut off.
    #[test]
    fn capture_is_the_capped_lossy_decoding_of_the_whole_stream(
        bytes in byte_soup(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        cap in 0usize..50,
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(bytes[start..cut].to_vec());
            start = cut;
        }
        chunks.push(bytes[start..].to_vec());

        let whole = String::from_utf8_lossy(&bytes);
        let (text, dropped) = capture(&chunks, cap);
        let expected: String = whole.chars().take(cap).collect();
        prop_assert_eq!(&text, &expected);
        prop_assert_eq!(dropped > 0, whole.chars().count() > cap);
        prop_assert!(dropped <= bytes.len() as u64);
    }
}

#[test]
fn capture_never_splits_a_character_at_the_cap() {
    let (text, dropped) = capture(&["ééé".as_bytes().to_vec()], 2);
    assert_eq!(text, "éé");
    assert_eq!(dropped, 2);
}

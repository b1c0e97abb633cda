//! YAML on serde_yaml_ng (a maintained fork of serde_yaml, on unsafe-libyaml).

use std::mem::MaybeUninit;

// The C library translated to Rust: every call into it is `unsafe`, named so here for short.
#[allow(clippy::unsafe_removed_from_name)]
use unsafe_libyaml as sys;
use wirebench_core::value::{max_depth, too_deep, YAML_LIBRARY_DEPTH};
use wirebench_core::{Schema, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Yaml;

static INFO: CodecInfo = CodecInfo {
    id: "yaml",
    format: "YAML",
    library: "serde_yaml_ng",
    schema: SchemaUse::None,
    media_type: "application/yaml",
    fidelity_notes: &[
        "bytes are not supported: serde_yaml_ng refuses to encode them",
        "float32 is read back as float64 (same value)",
        "nesting is limited to 128 levels by serde_yaml_ng whatever --max-depth says",
    ],
};

impl Codec for Yaml {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, _: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        serde_yaml_ng::to_writer(out, value).map_err(|e| CodecError::Encode(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], _: Option<&Schema>) -> Result<Value, CodecError> {
        refuse_deep_flow(bytes, depth_limit())?;
        serde_yaml_ng::from_slice(bytes).map_err(|e| {
            let off = e.location().map(|l| l.index());
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            // serde_yaml_ng stops at 128 levels of its own (not configurable): the same
            // wording as every other format's nesting limit.
            let msg = if msg.starts_with("recursion limit exceeded") { too_deep(depth_limit()) } else { msg };
            CodecError::decode(format!("invalid YAML: {msg}"), off)
        })
    }
}

/// Input longer than this is always read as events first (see [`refuse_deep_flow`]).
const PRECHECK_ALL_FROM: usize = 64 * 1024;

/// The YAML nesting limit: `--max-depth`, but never above what serde_yaml_ng takes.
fn depth_limit() -> usize {
    max_depth().min(YAML_LIBRARY_DEPTH)
}

/// Refuse input whose collections nest deeper than `limit` before serde_yaml_ng reads it.
///
/// serde_yaml_ng parses a whole document into events before its depth check, and libyaml's
/// scanner walks one saved simple key per open flow collection on every token: `{a: {a: {a:
/// …}}}` or `[[[…]]]` nested n deep costs n² (a 429 KB body took 11–13 s). Flow depth is at
/// most the number of `[` and `{` bytes, so input with no more of them than the limit goes
/// straight to serde_yaml_ng (every corpus message does); other input is read as events first,
/// stopping at the first collection deeper than the limit, so the scanner never holds more than
/// about `limit` flow levels and the work stays linear. A parse error is left to serde_yaml_ng
/// (it stops at the same place, so its message is the one given).
fn refuse_deep_flow(bytes: &[u8], limit: usize) -> Result<(), CodecError> {
    // Large input is read as events first whatever its brackets: compact block nesting (`- - -
    // …`, 2 bytes a level) would otherwise be held as serde_yaml_ng's events (170 MiB for 1 MB).
    if bytes.len() <= PRECHECK_ALL_FROM && bytes.iter().filter(|&&b| b == b'[' || b == b'{').count() <= limit {
        return Ok(());
    }
    /// The parser, boxed (libyaml keeps pointers into it) and deleted on every return.
    struct Parser(Box<MaybeUninit<sys::yaml_parser_t>>);
    impl Drop for Parser {
        fn drop(&mut self) {
            unsafe { sys::yaml_parser_delete(self.0.as_mut_ptr()) }
        }
    }
    let mut boxed = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
    // SAFETY: the parser is initialized before use and deleted (by `Parser`'s drop) before
    // `bytes`, which it reads through a raw pointer, goes out of scope; every event it gives is
    // deleted right after its type and mark are copied out.
    unsafe {
        if sys::yaml_parser_initialize(boxed.as_mut_ptr()).fail {
            return Ok(());
        }
        let mut p = Parser(boxed);
        let parser = p.0.as_mut_ptr();
        sys::yaml_parser_set_encoding(parser, sys::YAML_UTF8_ENCODING);
        sys::yaml_parser_set_input_string(parser, bytes.as_ptr(), bytes.len() as u64);
        let mut depth = 0usize;
        loop {
            let mut ev = MaybeUninit::<sys::yaml_event_t>::uninit();
            if sys::yaml_parser_parse(parser, ev.as_mut_ptr()).fail {
                return Ok(());
            }
            let ev = ev.as_mut_ptr();
            let (kind, at) = ((*ev).type_, (*ev).start_mark.index);
            sys::yaml_event_delete(ev);
            match kind {
                sys::YAML_SEQUENCE_START_EVENT | sys::YAML_MAPPING_START_EVENT => {
                    depth += 1;
                    if depth > limit {
                        return Err(CodecError::decode(
                            format!("invalid YAML: {}", too_deep(limit)),
                            Some(at as usize),
                        ));
                    }
                }
                sys::YAML_SEQUENCE_END_EVENT | sys::YAML_MAPPING_END_EVENT => depth = depth.saturating_sub(1),
                sys::YAML_STREAM_END_EVENT => return Ok(()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested_maps(n: usize) -> String {
        format!("{}1{}", "{a: ".repeat(n), "}".repeat(n))
    }

    fn nested_seqs(n: usize) -> String {
        format!("{}1{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn deep_flow_collections_are_refused_at_the_limit_with_the_shared_wording() {
        let limit = depth_limit();
        for text in [nested_maps(limit + 1), nested_seqs(limit + 1), nested_maps(100_000)] {
            let e = Yaml.decode(text.as_bytes(), None).unwrap_err().to_string();
            assert!(e.contains(&too_deep(limit)), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
        // The refusal is at the first collection past the limit (a character offset).
        let e = Yaml.decode(nested_seqs(100_000).as_bytes(), None).unwrap_err();
        assert_eq!(e.offset(), Some(limit), "{e}");
    }

    #[test]
    fn the_pre_check_refuses_exactly_what_serde_yaml_ng_refuses() {
        let limit = depth_limit();
        for n in limit - 3..=limit + 3 {
            for text in
                [nested_maps(n), nested_seqs(n), format!("k: {}", nested_seqs(n)), format!("- {}", nested_maps(n))]
            {
                let ours = Yaml.decode(text.as_bytes(), None);
                let theirs: Result<Value, _> = serde_yaml_ng::from_slice(text.as_bytes());
                assert_eq!(ours.is_ok(), theirs.is_ok(), "depth {n}: {text:.40}");
                if let Ok(v) = ours {
                    assert_eq!(v, theirs.unwrap());
                }
            }
        }
    }

    #[test]
    fn large_compact_block_nesting_is_refused_by_the_pre_check() {
        let text = "- ".repeat(PRECHECK_ALL_FROM);
        let e = Yaml.decode(text.as_bytes(), None).unwrap_err();
        assert!(e.to_string().contains(&too_deep(depth_limit())), "{e}");
        assert_eq!(e.offset(), Some(2 * depth_limit()), "{e}");
    }

    #[test]
    fn many_shallow_flow_collections_are_read_not_refused() {
        // More `[` than the limit, nested only two deep: the event pre-check runs and passes.
        let text: String = (0..1000).map(|i| format!("k{i}: [[{i}], {{x: [1]}}]\n")).collect();
        let v = Yaml.decode(text.as_bytes(), None).unwrap();
        let Value::Map(pairs) = v else { panic!("not a map") };
        assert_eq!(pairs.len(), 1000);
        // Brackets inside quoted scalars are not collections.
        let text = format!("s: \"{}\"\n", "[{".repeat(10_000));
        assert!(Yaml.decode(text.as_bytes(), None).is_ok());
    }

    #[test]
    fn a_parse_error_keeps_serde_yaml_ngs_message() {
        // Malformed before any deep nesting: the pre-check stops there and says nothing.
        let text = format!("{{a: b}}}}\n{}", "[".repeat(500));
        let ours = Yaml.decode(text.as_bytes(), None).unwrap_err().to_string();
        let theirs = serde_yaml_ng::from_slice::<Value>(text.as_bytes()).unwrap_err().to_string();
        let theirs = theirs.split(" at line ").next().unwrap();
        assert!(ours.starts_with(&format!("invalid YAML: {theirs}")), "{ours} / {theirs}");
        assert!(!ours.contains("nested deeper"), "{ours}");
    }
}

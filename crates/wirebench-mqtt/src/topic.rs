//! MQTT topic rules for the topics we publish to (MQTT 3.1.1 §4.7, MQTT 5 §4.7).

use crate::error::MqttError;

/// Longest topic MQTT can carry: its length is a 16-bit prefix.
pub const MAX_TOPIC_BYTES: usize = 65_535;

/// Check a *publish* topic (no wildcards): non-empty, at most 65,535 bytes of UTF-8, no `+`
/// or `#` (wildcards are for subscriptions), no NUL character. Our subscribers subscribe to
/// the very same topic, so this is the one rule for both sides.
pub fn validate_topic(topic: &str) -> Result<(), MqttError> {
    let bad = |reason: String| Err(MqttError::InvalidTopic { topic: shorten(topic), reason });
    if topic.is_empty() {
        return bad("a topic must be at least one character long".into());
    }
    if topic.len() > MAX_TOPIC_BYTES {
        return bad(format!("{} bytes of UTF-8; MQTT allows at most {MAX_TOPIC_BYTES}", topic.len()));
    }
    if let Some(i) = topic.find(['+', '#']) {
        let c = &topic[i..i + 1];
        return bad(format!(
            "wildcard {c:?} at byte {i}: wildcards are only allowed in subscription filters, not in topics we publish to"
        ));
    }
    if let Some(i) = topic.find('\0') {
        return bad(format!("NUL character at byte {i}: MQTT forbids U+0000 in topics"));
    }
    Ok(())
}

/// A topic short enough for an error message.
fn shorten(topic: &str) -> String {
    const KEEP: usize = 60;
    if topic.len() <= KEEP {
        return topic.to_string();
    }
    let mut end = KEEP;
    while !topic.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &topic[..end], topic.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_rules() {
        assert!(validate_topic("opcua/uadp/data").is_ok());
        assert!(validate_topic("/").is_ok());
        let e = validate_topic("a/+/b").unwrap_err().to_string();
        assert!(e.contains("a/+/b") && e.contains("wildcard \"+\" at byte 2"), "{e}");
        assert!(validate_topic("a/#").unwrap_err().to_string().contains("wildcard \"#\""));
        assert!(validate_topic("").unwrap_err().to_string().contains("at least one"));
        assert!(validate_topic("a\0b").unwrap_err().to_string().contains("NUL character at byte 1"));
        let long = "x".repeat(MAX_TOPIC_BYTES + 1);
        let e = validate_topic(&long).unwrap_err().to_string();
        assert!(e.contains("65536 bytes") && e.len() < 200, "{e}");
        assert!(validate_topic(&"x".repeat(MAX_TOPIC_BYTES)).is_ok());
    }
}

//! The bounded output buffer of one `execute_cmd` call: everything up to
//! [`OUTPUT_LIMIT_BYTES`], else the first [`OUTPUT_HEAD_BYTES`] and the last
//! [`OUTPUT_TAIL_BYTES`] with a notice of how much was left out. Memory stays
//! bounded however much a command prints; cuts fall on UTF-8 character
//! boundaries and anything not UTF-8 is decoded lossily.

/// Output up to this many bytes is returned whole.
pub const OUTPUT_LIMIT_BYTES: usize = 100 * 1024;
/// Bytes kept from the start of longer output.
pub const OUTPUT_HEAD_BYTES: usize = 50 * 1024;
/// Bytes kept from the end of longer output.
pub const OUTPUT_TAIL_BYTES: usize = 50 * 1024;

#[derive(Default)]
pub(crate) struct OutputBuffer {
    head: Vec<u8>,
    /// The bytes after `head`; trimmed to the last `OUTPUT_TAIL_BYTES` when it
    /// grows past twice that (amortised, no per-byte shifting).
    tail: Vec<u8>,
    total: u64,
}

impl OutputBuffer {
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = OUTPUT_HEAD_BYTES.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        if bytes.is_empty() {
            return;
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * OUTPUT_TAIL_BYTES {
            let cut = self.tail.len() - OUTPUT_TAIL_BYTES;
            self.tail.drain(..cut);
        }
    }

    /// The output as text for the model.
    pub(crate) fn finish(self) -> String {
        if self.total <= OUTPUT_LIMIT_BYTES as u64 {
            // Nothing was trimmed: head + tail is the whole output.
            let mut all = self.head;
            all.extend_from_slice(&self.tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let tail = &self.tail[self.tail.len().saturating_sub(OUTPUT_TAIL_BYTES)..];
        let head = &self.head[..head_cut(&self.head)];
        let tail = &tail[tail_start(tail)..];
        let omitted = self.total - (head.len() + tail.len()) as u64;
        format!(
            "{}\n\n[… {omitted} bytes omitted: the output was {} bytes; showing the first {} \
             KB and the last {} KB …]\n\n{}",
            String::from_utf8_lossy(head),
            self.total,
            OUTPUT_HEAD_BYTES / 1024,
            OUTPUT_TAIL_BYTES / 1024,
            String::from_utf8_lossy(tail),
        )
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0b1100_0000 == 0b1000_0000
}

/// Length of the UTF-8 sequence a lead byte starts; 0 when it is no lead byte.
fn sequence_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 0,
    }
}

/// Where to cut `b` so it does not end inside a multi-byte character.
fn head_cut(b: &[u8]) -> usize {
    let n = b.len();
    let mut i = n;
    while i > 0 && n - i < 3 && is_continuation(b[i - 1]) {
        i -= 1;
    }
    if i == 0 {
        return n;
    }
    let lead = i - 1;
    if sequence_len(b[lead]) > n - lead {
        lead
    } else {
        n
    }
}

/// Where to start `b` so it does not begin inside a multi-byte character.
fn tail_start(b: &[u8]) -> usize {
    b.iter()
        .take(3)
        .take_while(|&&x| is_continuation(x))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_whole() {
        let mut o = OutputBuffer::default();
        o.push(b"hello ");
        o.push("wörld".as_bytes());
        assert_eq!(o.finish(), "hello wörld");
    }

    #[test]
    fn exactly_the_limit_is_whole() {
        let mut o = OutputBuffer::default();
        for _ in 0..OUTPUT_LIMIT_BYTES / 1024 {
            o.push(&[b'x'; 1024]);
        }
        let s = o.finish();
        assert_eq!(s.len(), OUTPUT_LIMIT_BYTES);
        assert!(!s.contains("omitted"));
    }

    #[test]
    fn long_output_keeps_head_and_tail_on_char_boundaries() {
        let mut o = OutputBuffer::default();
        // 'é' is two bytes; an odd prefix puts every cut inside a character.
        o.push(b"a");
        let chunk = "é".repeat(1000);
        for _ in 0..200 {
            o.push(chunk.as_bytes());
        }
        o.push(b"END");
        let total = 1 + 200 * 2000 + 3;
        let s = o.finish();
        assert!(s.starts_with("aé"));
        assert!(s.ends_with("éEND"));
        assert!(!s.contains('\u{fffd}'), "a cut split a character");
        let (head, rest) = s.split_once("\n\n[… ").unwrap();
        let (notice, tail) = rest.split_once(" …]\n\n").unwrap();
        let omitted = total - head.len() - tail.len();
        assert!(
            notice.starts_with(&format!("{omitted} bytes omitted")),
            "{notice}"
        );
        assert!(notice.contains(&format!("the output was {total} bytes")));
        assert!(head.len() <= OUTPUT_HEAD_BYTES && head.len() >= OUTPUT_HEAD_BYTES - 3);
        assert!(tail.len() <= OUTPUT_TAIL_BYTES && tail.len() >= OUTPUT_TAIL_BYTES - 3);
    }

    #[test]
    fn non_utf8_is_lossy() {
        let mut o = OutputBuffer::default();
        o.push(&[b'a', 0xff, b'b']);
        assert_eq!(o.finish(), "a\u{fffd}b");
    }

    #[test]
    fn cuts() {
        assert_eq!(head_cut(b"abc"), 3);
        assert_eq!(head_cut("aé".as_bytes()), 3);
        assert_eq!(head_cut(&"aé".as_bytes()[..2]), 1);
        assert_eq!(head_cut(&"a🦀".as_bytes()[..4]), 1);
        assert_eq!(head_cut("a🦀".as_bytes()), 5);
        assert_eq!(tail_start(&"é".as_bytes()[1..]), 1);
        assert_eq!(tail_start(&"🦀x".as_bytes()[1..]), 3);
        assert_eq!(tail_start(b"x"), 0);
    }
}

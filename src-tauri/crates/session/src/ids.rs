//! Unique tool_call_ids for calls whose provider gave none (or one already
//! taken: `chat_llm_tools.id` is unique across every session).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// `skald_<16 hex>`: clock, a process-wide counter and a per-call random hash
/// key, so two processes sharing a DB do not collide.
pub fn new_tool_call_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u128(nanos);
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    format!("skald_{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_shaped() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| new_tool_call_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|i| i.len() == 22 && i.starts_with("skald_")));
    }
}

//! Sorting by a key of whole numbers, with one copy of the sort.
//!
//! Every `sort_by_key` on another element type is another copy of the standard library's sort
//! (about 3–4 KB of WASM each). The browser's bundle runs the forecasts and the what-if replay,
//! so the sorts they need go through [`sort_by_key`], whose key is always a [`Key`]: one sort,
//! and a small reorder per element type.
use chrono::{DateTime, Utc};

/// A sort key: compared element by element (lexicographically); unused places are 0.
pub type Key = [i64; 8];

/// An instant as two places of a [`Key`] (seconds, then nanoseconds): chronological order.
pub fn instant(t: DateTime<Utc>) -> [i64; 2] {
    [t.timestamp(), i64::from(t.timestamp_subsec_nanos())]
}

/// An instant alone as a [`Key`].
pub fn by_instant(t: DateTime<Utc>) -> Key {
    let [s, n] = instant(t);
    [s, n, 0, 0, 0, 0, 0, 0]
}

/// Sorts `v` by `key`, stably (equal keys keep their order), as `slice::sort_by_key` does.
pub fn sort_by_key<T>(v: &mut Vec<T>, key: impl Fn(&T) -> Key) {
    let keys: Vec<Key> = v.iter().map(key).collect();
    let order = order_of(&keys);
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    // Each index appears once: every element is taken exactly once.
    v.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// The indices of `keys` in key order, equal keys in their given order. Not generic: the one
/// copy of the sort.
#[inline(never)]
pub fn order_of(keys: &[Key]) -> Vec<usize> {
    let mut keyed: Vec<(Key, usize)> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // The index makes every key unique, so the unstable sort is stable.
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// `keys` sorted and without duplicates, for [`contains`].
pub fn set_of(keys: Vec<Key>) -> Vec<Key> {
    let mut out: Vec<Key> = order_of(&keys).into_iter().map(|i| keys[i]).collect();
    out.dedup();
    out
}

/// Whether `set` (from [`set_of`]) holds `key`.
pub fn contains(set: &[Key], key: &Key) -> bool {
    set.binary_search(key).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_as_the_standard_sort_does() {
        let items: Vec<(i64, char)> = vec![(3, 'a'), (1, 'b'), (3, 'c'), (-2, 'd'), (1, 'e'), (0, 'f')];
        let mut ours = items.clone();
        sort_by_key(&mut ours, |&(n, _)| [n, 0, 0, 0, 0, 0, 0, 0]);
        let mut std_sorted = items;
        std_sorted.sort_by_key(|&(n, _)| n);
        assert_eq!(ours, std_sorted);
    }

    #[test]
    fn instants_sort_in_time_order_across_the_epoch_and_within_a_second() {
        let t = |s: i64, n: u32| DateTime::<Utc>::from_timestamp(s, n).unwrap();
        let mut v = vec![t(5, 1), t(-1, 999_999_999), t(5, 0), t(-2, 0)];
        sort_by_key(&mut v, |&x| {
            let [a, b] = instant(x);
            [a, b, 0, 0, 0, 0, 0, 0]
        });
        assert_eq!(v, vec![t(-2, 0), t(-1, 999_999_999), t(5, 0), t(5, 1)]);
    }
}

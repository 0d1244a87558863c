//! A bounded map for the policy's state.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// A map with a size limit that drops the least recently inserted key past it.
#[derive(Debug)]
pub(super) struct Lru<V> {
    map: HashMap<PathBuf, (u64, V)>,
    order: BTreeMap<u64, PathBuf>,
    cap: usize,
    next: u64,
}

impl<V> Lru<V> {
    pub(super) fn new(cap: usize) -> Self {
        Lru {
            map: HashMap::new(),
            order: BTreeMap::new(),
            cap,
            next: 0,
        }
    }

    /// Inserts (or refreshes) `key`; returns the entry dropped to stay within the limit.
    pub(super) fn insert(&mut self, key: PathBuf, value: V) -> Option<(PathBuf, V)> {
        let seq = self.next;
        self.next += 1;
        if let Some((old, _)) = self.map.insert(key.clone(), (seq, value)) {
            self.order.remove(&old);
        }
        self.order.insert(seq, key);
        if self.map.len() <= self.cap {
            return None;
        }
        let (_, oldest) = self.order.pop_first()?;
        let (_, value) = self.map.remove(&oldest)?;
        Some((oldest, value))
    }

    pub(super) fn get(&self, key: &Path) -> Option<&V> {
        self.map.get(key).map(|(_, v)| v)
    }

    pub(super) fn remove(&mut self, key: &Path) -> Option<V> {
        let (seq, value) = self.map.remove(key)?;
        self.order.remove(&seq);
        Some(value)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values().map(|(_, v)| v)
    }

    /// Every entry, least recently inserted first.
    pub(super) fn iter_oldest_first(&self) -> impl Iterator<Item = (&Path, &V)> {
        self.order
            .values()
            .filter_map(|key| self.map.get(key).map(|(_, v)| (key.as_path(), v)))
    }

    /// Remove every entry and return them, least recently inserted first.
    pub(super) fn take_oldest_first(&mut self) -> Vec<(PathBuf, V)> {
        let order = std::mem::take(&mut self.order);
        let mut map = std::mem::take(&mut self.map);
        order
            .into_values()
            .filter_map(|key| map.remove(&key).map(|(_, v)| (key, v)))
            .collect()
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_refresh_moves_a_key_to_the_back() {
        let mut lru = Lru::new(2);
        assert!(lru.insert("a".into(), 1).is_none());
        assert!(lru.insert("b".into(), 2).is_none());
        assert!(lru.insert("a".into(), 3).is_none());
        assert_eq!(lru.insert("c".into(), 4), Some(("b".into(), 2)));
        assert_eq!(lru.get(Path::new("a")), Some(&3));
        assert_eq!(lru.remove(Path::new("a")), Some(3));
        assert_eq!((lru.len(), lru.order.len()), (1, 1));
    }

    #[test]
    fn entries_come_out_oldest_first() {
        let mut lru = Lru::new(3);
        lru.insert("a".into(), 1);
        lru.insert("b".into(), 2);
        lru.insert("a".into(), 3);
        let seen: Vec<(&Path, &i32)> = lru.iter_oldest_first().collect();
        assert_eq!(seen, [(Path::new("b"), &2), (Path::new("a"), &3)]);
        assert_eq!(
            lru.take_oldest_first(),
            [(PathBuf::from("b"), 2), (PathBuf::from("a"), 3)]
        );
        assert_eq!((lru.len(), lru.order.len()), (0, 0));
    }
}

//! Locks that a panic elsewhere does not poison. mcpick's shared state (logs, listings,
//! connections) stays usable after a task panicked holding it: the data is whole at every
//! point a guard is dropped, so the one way to take a lock is to recover it.

use std::sync::{Mutex, MutexGuard};

/// [`Mutex::lock`], recovered when a panic poisoned it.
pub trait Locked<T> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_with_its_data() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let mut g = held.lock().unwrap();
            *g = 2;
            panic!("poisons the lock");
        })
        .join();
        assert!(m.is_poisoned());
        assert_eq!(*m.locked(), 2);
    }
}

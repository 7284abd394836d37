//! Forward kernels prepared from weights (im2col's tap matrices, Winograd's transformed
//! kernels), kept for the next calls in inference, where the same weight tensors come back at
//! every call: preparing them took 40% of a 6x6 evaluation at batch 1.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use burn::backend::flex::FlexTensor;
use burn::tensor::Bytes;

use super::blocks::ConvShape;
use super::conv::{Kernels, Preparation};
use super::values;

/// Bytes the kept entries may hold (weights and prepared kernels), the least recently used
/// dropped first: an 8x8 network of 6 blocks of 64 channels holds about 5 MiB, one of 20
/// blocks of 128 channels about 60 MiB.
const BUDGET: usize = 256 << 20;

struct Entry {
    /// The weight's data, held: flex writes in place only into data it holds alone, so while
    /// it is held here, a weight with this data has these values.
    data: Arc<Bytes>,
    layout: burn::backend::flex::Layout,
    preparation: Preparation,
    prepared: Arc<Vec<f32>>,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.data.len() + self.prepared.len() * size_of::<f32>()
    }
}

/// The kept entries, the most recently used last.
static PREPARED: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());

/// `kernels`' preparation of `weight`, made once per weight (its data, layout and form) while
/// its entry is kept.
pub(super) fn prepared(kernels: &Kernels, shape: &ConvShape, weight: &FlexTensor) -> Arc<Vec<f32>> {
    let data = weight.data_arc();
    let is_this = |entry: &Entry| {
        Arc::ptr_eq(&entry.data, &data)
            && entry.layout == *weight.layout()
            && entry.preparation == kernels.preparation
    };
    // A panic elsewhere while holding the lock leaves the entries whole (each is moved whole).
    let lock = || PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    // Moves this weight's entry, if kept, to the back; returns its kernels.
    let find = |entries: &mut VecDeque<Entry>| {
        let position = entries.iter().position(is_this)?;
        let entry = entries.remove(position)?;
        let prepared = Arc::clone(&entry.prepared);
        entries.push_back(entry);
        Some(prepared)
    };
    if let Some(prepared) = find(&mut lock()) {
        return prepared;
    }
    // Prepared outside the lock; another thread may have kept it meanwhile.
    let prepared = Arc::new((kernels.prepare)(shape, &values(weight)));
    let mut entries = lock();
    if let Some(kept) = find(&mut entries) {
        return kept;
    }
    entries.push_back(Entry {
        data,
        layout: weight.layout().clone(),
        preparation: kernels.preparation,
        prepared: Arc::clone(&prepared),
    });
    keep_within(&mut entries, BUDGET);
    prepared
}

/// Drops the least recently used entries (at the front) until the rest hold at most `budget`
/// bytes, always keeping the newest.
fn keep_within(entries: &mut VecDeque<Entry>, budget: usize) {
    let mut bytes: usize = entries.iter().map(Entry::bytes).sum();
    while bytes > budget && entries.len() > 1 {
        bytes -= entries.pop_front().map_or(0, |entry| entry.bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::super::conv::kernels_for;
    use super::super::flex_tensor;
    use super::super::testing::values as test_values;
    use super::*;

    /// A weight is prepared once per form; another weight with its values is prepared anew.
    #[test]
    fn a_weight_is_prepared_once_per_form() {
        let shape = |batch| ConvShape {
            batch,
            inputs: 3,
            outputs: 4,
            rows: 5,
            cols: 5,
            kernel: 3,
        };
        let values = test_values(4 * 3 * 9, 7);
        let weight = flex_tensor(values.clone(), [4, 3, 3, 3]);
        let twin = flex_tensor(values, [4, 3, 3, 3]);
        for batch in [1, 8] {
            let kernels = kernels_for(&shape(batch), false);
            let first = prepared(&kernels, &shape(batch), &weight);
            assert!(Arc::ptr_eq(
                &first,
                &prepared(&kernels, &shape(batch), &weight)
            ));
            let other = prepared(&kernels, &shape(batch), &twin);
            assert!(!Arc::ptr_eq(&first, &other));
            assert_eq!(first, other);
        }
        let im2col = prepared(&kernels_for(&shape(1), false), &shape(1), &weight);
        let winograd = prepared(&kernels_for(&shape(1), true), &shape(1), &weight);
        assert_ne!(im2col.len(), winograd.len());
    }

    /// Beyond the budget the least recently used entries go, the newest stays.
    #[test]
    fn the_least_recently_used_entries_go_first() {
        let entry = |values: usize| Entry {
            data: flex_tensor(vec![0.0; values], [values]).data_arc(),
            layout: flex_tensor(vec![0.0; values], [values]).layout().clone(),
            preparation: Preparation::TapMatrix,
            prepared: Arc::new(vec![0.0; values]),
        };
        // Entries of 8, 16 and 24 bytes for 1, 2 and 3 values.
        let mut entries: VecDeque<Entry> = [1, 2, 3].into_iter().map(entry).collect();
        keep_within(&mut entries, 48);
        assert_eq!(entries.len(), 3);
        keep_within(&mut entries, 47);
        let left: Vec<usize> = entries.iter().map(|entry| entry.prepared.len()).collect();
        assert_eq!(left, [2, 3]);
        keep_within(&mut entries, 1);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].prepared.len(), 3);
    }
}

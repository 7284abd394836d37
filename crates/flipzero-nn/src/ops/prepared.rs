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

/// Prepared kernels kept at most, the oldest dropped first: a network has 10 to 20
/// convolutions, and self-play may alternate between two networks.
const CAPACITY: usize = 64;

struct Entry {
    /// The weight's data, held: flex writes in place only into data it holds alone, so while
    /// it is held here, a weight with this data has these values.
    data: Arc<Bytes>,
    layout: burn::backend::flex::Layout,
    preparation: Preparation,
    prepared: Arc<Vec<f32>>,
}

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
    // A panic elsewhere while holding the lock leaves the entries whole (each is pushed whole).
    let lock = || PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(entry) = lock().iter().find(|entry| is_this(entry)) {
        return Arc::clone(&entry.prepared);
    }
    let prepared = Arc::new((kernels.prepare)(shape, &values(weight)));
    let mut entries = lock();
    if entries.len() == CAPACITY {
        entries.pop_front();
    }
    entries.push_back(Entry {
        data,
        layout: weight.layout().clone(),
        preparation: kernels.preparation,
        prepared: Arc::clone(&prepared),
    });
    prepared
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
}

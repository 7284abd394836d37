//! The network's heavy operations, convolutions and batch normalisation, with kernels of our
//! own on the flex CPU backend.
//!
//! Burn's flex backend runs a convolution as one small GEMM per image and batch normalisation
//! as a chain of generic tensor operations, each a pass over memory with its own transposes;
//! on our small boards that made training 3-4 times slower than PyTorch's CPU path. The
//! operations here take the tensors' flex primitives through Burn's backend-extension API
//! (`try_into_primitive`), run our kernels, and register their own backward steps with Burn's
//! autodiff. On any other backend (cuda, wgpu, another dtype or a checkpointing autodiff) they
//! call Burn's own operation, so the network computes the same function everywhere.

/// Defines a function whose body is compiled three times, for AVX-512, for AVX2 and for the
/// baseline, and run in the widest version the CPU has: the crate is built for the baseline
/// x86-64, whose 128-bit registers make 16-lane arithmetic spill
/// and leaves gathers and strided copies scalar.
macro_rules! vectorised {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$doc])*
        $vis fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                fn avx512($($arg: $ty),*) {
                    body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) {
                    body($($arg),*)
                }
                if is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has the features the function is compiled for.
                    return unsafe { avx512($($arg),*) };
                }
                if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                    // SAFETY: as above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

mod blocks;
mod conv;
mod conv_kernels;
mod fused;
mod norm;
mod norm_kernels;
mod prepared;
#[cfg(test)]
pub(crate) mod testing;
mod winograd;

pub use conv::same_convolution;
pub use fused::conv_norm_relu;
pub use norm::batch_norm;

use std::borrow::Cow;

use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Flex};
use burn::tensor::{DType, Tensor, TensorData};

/// `tensor`'s primitive when it is an f32 tensor on flex without autodiff.
fn on_flex<const D: usize>(tensor: &Tensor<D>) -> Option<FlexTensor> {
    let primitive = tensor.clone().try_into_primitive::<Flex>().ok()?;
    (primitive.dtype() == DType::F32).then_some(primitive)
}

/// `tensor`'s primitive when it is an f32 tensor on flex with (non-checkpointing) autodiff.
fn on_autodiff_flex<const D: usize>(tensor: &Tensor<D>) -> Option<FloatTensor<Autodiff<Flex>>> {
    let primitive = tensor.clone().try_into_primitive::<Autodiff<Flex>>().ok()?;
    (primitive.primitive().dtype() == DType::F32).then_some(primitive)
}

/// Runs `work` on a thread of the current rayon pool (at once when this is one). The kernels
/// split each operation over the pool: from a pool thread each split is a join whose other
/// half the idle thread steals, where from outside the pool each operation is injected into
/// it and waited for (6x6 training steps 17-25% slower). Training steps run this way
/// (`flipzero_train::Trainer::train_step`). Not worth it for one small forward pass, which
/// splits nothing at batch 1: moving it into the pool costs a wake-up (6x6 batch 1: 12,500
/// then 5,900 evaluations per second).
pub fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::join(work, || ()).0
}

/// Whether the operations here run `tensor` (and tensors on its device) through our kernels
/// rather than Burn's.
pub fn has_kernels<const D: usize>(tensor: &Tensor<D>) -> bool {
    on_flex(tensor).is_some() || on_autodiff_flex(tensor).is_some()
}

/// The f32 values of a flex tensor, in row-major order.
fn values(tensor: &FlexTensor) -> Cow<'_, [f32]> {
    match tensor.as_slice::<f32>() {
        Some(values) if tensor.is_contiguous() => values.into(),
        _ => tensor
            .to_contiguous()
            .as_slice::<f32>()
            .expect("an f32 tensor")
            .to_vec()
            .into(),
    }
}

fn flex_tensor<const D: usize>(values: Vec<f32>, shape: [usize; D]) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(values, shape))
}

// The torch binding kernel-builder compiles: checks the tensors, then
// calls the kernel's extern "C" launcher on the current CUDA stream.
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

extern "C" void rms_norm(float *out, const float *in, const float *weight,
                         int rows, int cols, float eps, cudaStream_t stream);

void rms_norm(torch::Tensor &out, const torch::Tensor &input,
              const torch::Tensor &weight, double eps)
{
    TORCH_CHECK(input.is_cuda() && input.is_contiguous(), "input: a contiguous CUDA tensor");
    TORCH_CHECK(input.scalar_type() == at::kFloat, "input: float32");
    const int cols = static_cast<int>(input.size(-1));
    TORCH_CHECK(cols % 4 == 0, "the last dimension must be a multiple of 4 (float4 loads)");
    const int rows = static_cast<int>(input.numel() / cols);
    rms_norm(out.data_ptr<float>(), input.data_ptr<float>(),
             weight.data_ptr<float>(), rows, cols, static_cast<float>(eps),
             at::cuda::getCurrentCUDAStream());
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)
{
    ops.def("rms_norm(Tensor! out, Tensor input, Tensor weight, float eps) -> ()");
    ops.impl("rms_norm", torch::kCUDA, &rms_norm);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)

#pragma once

#include <torch/torch.h>

void rms_norm(torch::Tensor &out, const torch::Tensor &input,
              const torch::Tensor &weight, double eps);

"""TFLite's integer arithmetic, shared by every backend's quantized kernels: quantized
multipliers and rounding (qmath), gemmlowp fixed point (qfixed), lookup tables (qlut_math,
qpairtable), the binary ops' vector-lane arithmetic (qbinary_math), HARD_SWISH and int8 RSQRT
(qunary_math), DIV and LSTM arithmetic (qdiv_math, qlstm_math), exact integer products on
float BLAS (qgemm), and GGML's block quantization as Circle stores it (ggml_blocks)."""

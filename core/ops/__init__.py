"""Op logic that every backend shares (TFLite Micro's Prepare/OpData): the forms an op comes in
(`forms`), and per op or op family its parameters, validation, geometry and quantized
precomputation. Backends keep only their compute."""

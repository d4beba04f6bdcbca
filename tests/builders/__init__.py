"""Model builders shared by the tests: functions that write small TFLite/Circle models in code
(and the inputs that go with them), imported as `builders.<module>` (conftest puts tests/ on
sys.path). Test modules import from here and from the harness modules (op_harness,
quant_harness, rnn_harness, oracle), never from one another."""

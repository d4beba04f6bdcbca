"""Quantized (int8/uint8/int16) kernels of the cpu backend, with TFLite's integer arithmetic.
Importing the modules registers them in the cpu registry (`when=quantized`)."""
from . import quantize  # noqa: F401
from . import qbinary_arithmetic  # noqa: F401
from . import qpool  # noqa: F401
from . import qreduce  # noqa: F401
from . import qresize  # noqa: F401
from . import qnorm  # noqa: F401
from . import qconcat  # noqa: F401
from . import qmove  # noqa: F401
from . import qactivation  # noqa: F401
from . import qsoftmax  # noqa: F401
from . import qfully_connected  # noqa: F401
from . import qbatch_matmul  # noqa: F401
from . import qconv2d  # noqa: F401
from . import qdepthwise_conv2d  # noqa: F401
from . import qsvdf  # noqa: F401
from . import qunary  # noqa: F401
from . import qsqdiff  # noqa: F401
from . import qhardswish  # noqa: F401
from . import qsoftmax16  # noqa: F401
from . import qtranspose_conv  # noqa: F401
from . import qlstm  # noqa: F401
from . import qcompare  # noqa: F401
from . import qprelu  # noqa: F401
from . import qtanh16  # noqa: F401
from . import qlogsoftmax  # noqa: F401

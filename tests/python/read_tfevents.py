"""Reads a TensorBoard event file with tensorboard's own TFRecord reader (which
checks both masked CRC32Cs) and protobuf classes, printing one line per event:
  version <file_version> | scalar <step> <tag> <value> | image <step> <tag> <h> <w> <colorspace> <png bytes>
  | text <step> <tag> <plugin> <the string, repr>
Exits non-zero on any CRC or parse error."""
import sys

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.tensorflow_stub import errors, pywrap_tensorflow

reader = pywrap_tensorflow.PyRecordReader_New(sys.argv[1], 0, None, None)
while True:
    try:
        reader.GetNext()
    except errors.OutOfRangeError:
        break
    event = event_pb2.Event.FromString(reader.record())
    if event.HasField("file_version"):
        print("version", event.file_version)
    for v in event.summary.value:
        if v.HasField("simple_value"):
            print("scalar", event.step, v.tag, repr(v.simple_value))
        elif v.HasField("image"):
            im = v.image
            assert im.encoded_image_string[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
            print("image", event.step, v.tag, im.height, im.width, im.colorspace, len(im.encoded_image_string))
        elif v.HasField("tensor"):
            t = v.tensor
            assert t.dtype == 7 and len(t.string_val) == 1, "not a scalar string tensor"
            print("text", event.step, v.tag, v.metadata.plugin_data.plugin_name, repr(t.string_val[0].decode()))

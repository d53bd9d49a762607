# -*- coding: utf-8 -*-
# Generated in the layout of the protocol buffer compiler (protoc 5.28), for refgraph's tests.
# source: protohub/orders.proto
"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
# @@protoc_insertion_point(imports)

_sym_db = _symbol_database.Default()


DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x15protohub/orders.proto\x12\x08protohub"\xc8\x01\n\x05Order\x12\x10\n\x08order_id\x18\x01 \x01(\t\x12&\n\x06status\x18\x02 \x01(\x0e2\x16.protohub.Order.Status\x12#\n\x05lines\x18\x03 \x03(\x0b2\x14.protohub.Order.Line\x1a%\n\x04Line\x12\x0b\n\x03sku\x18\x01 \x01(\t\x12\x10\n\x08quantity\x18\x02 \x01(\x05"9\n\x06Status\x12\x16\n\x12STATUS_UNSPECIFIED\x10\x00\x12\n\n\x06PLACED\x10\x01\x12\x0b\n\x07SHIPPED\x10\x02*6\n\x08Currency\x12\x18\n\x14CURRENCY_UNSPECIFIED\x10\x00\x12\x07\n\x03EUR\x10\x01\x12\x07\n\x03USD\x10\x022<\n\x0cOrderService\x12,\n\x08GetOrder\x12\x0f.protohub.Order\x1a\x0f.protohub.Orderb\x06proto3')

_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'protohub.orders_pb2', _globals)
_builder.BuildServices(DESCRIPTOR, 'protohub.orders_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
  DESCRIPTOR._loaded_options = None
  _globals['_ORDER']._serialized_start=27
# @@protoc_insertion_point(module_scope)

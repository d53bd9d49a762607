"""protohub: a gRPC-style SDK whose messages protoc generates (orders_pb2)."""

from protohub.orders_pb2 import Currency, Order

__all__ = ["Currency", "Order"]

/**
 * The OTLP trace messages the receiver reads and answers (opentelemetry-proto
 * `collector/trace/v1`, `trace/v1`, `resource/v1`, `common/v1`), declared for
 * protobufjs reflection: field names in lowerCamelCase, as OTLP/JSON spells
 * them, so both encodings decode to objects of the same shape. Only the
 * fields the gateway keeps are declared; protobuf skips the others (the
 * deprecated `instrumentation_library_spans`, entity refs, flags).
 */
import protobuf from "protobufjs"

const keyValues = (id: number) => ({ rule: "repeated", type: "opentelemetry.proto.common.v1.KeyValue", id })

const definitions = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: {
                          oneof: [
                            "stringValue",
                            "boolValue",
                            "intValue",
                            "doubleValue",
                            "arrayValue",
                            "kvlistValue",
                            "bytesValue"
                          ]
                        }
                      },
                      fields: {
                        stringValue: { type: "string", id: 1 },
                        boolValue: { type: "bool", id: 2 },
                        intValue: { type: "int64", id: 3 },
                        doubleValue: { type: "double", id: 4 },
                        arrayValue: { type: "ArrayValue", id: 5 },
                        kvlistValue: { type: "KeyValueList", id: 6 },
                        bytesValue: { type: "bytes", id: 7 }
                      }
                    },
                    ArrayValue: { fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } } },
                    KeyValueList: { fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } } },
                    KeyValue: { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } },
                    InstrumentationScope: {
                      fields: {
                        name: { type: "string", id: 1 },
                        version: { type: "string", id: 2 },
                        attributes: keyValues(3),
                        droppedAttributesCount: { type: "uint32", id: 4 }
                      }
                    }
                  }
                }
              }
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: {
                      fields: { attributes: keyValues(1), droppedAttributesCount: { type: "uint32", id: 2 } }
                    }
                  }
                }
              }
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: {
                      fields: {
                        resource: { type: "opentelemetry.proto.resource.v1.Resource", id: 1 },
                        scopeSpans: { rule: "repeated", type: "ScopeSpans", id: 2 },
                        schemaUrl: { type: "string", id: 3 }
                      }
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: "opentelemetry.proto.common.v1.InstrumentationScope", id: 1 },
                        spans: { rule: "repeated", type: "Span", id: 2 },
                        schemaUrl: { type: "string", id: 3 }
                      }
                    },
                    Span: {
                      fields: {
                        traceId: { type: "bytes", id: 1 },
                        spanId: { type: "bytes", id: 2 },
                        traceState: { type: "string", id: 3 },
                        parentSpanId: { type: "bytes", id: 4 },
                        name: { type: "string", id: 5 },
                        kind: { type: "int32", id: 6 },
                        startTimeUnixNano: { type: "fixed64", id: 7 },
                        endTimeUnixNano: { type: "fixed64", id: 8 },
                        attributes: keyValues(9),
                        droppedAttributesCount: { type: "uint32", id: 10 },
                        events: { rule: "repeated", type: "Event", id: 11 },
                        droppedEventsCount: { type: "uint32", id: 12 },
                        links: { rule: "repeated", type: "Link", id: 13 },
                        droppedLinksCount: { type: "uint32", id: 14 },
                        status: { type: "Status", id: 15 }
                      },
                      nested: {
                        Event: {
                          fields: {
                            timeUnixNano: { type: "fixed64", id: 1 },
                            name: { type: "string", id: 2 },
                            attributes: keyValues(3),
                            droppedAttributesCount: { type: "uint32", id: 4 }
                          }
                        },
                        Link: {
                          fields: {
                            traceId: { type: "bytes", id: 1 },
                            spanId: { type: "bytes", id: 2 },
                            traceState: { type: "string", id: 3 },
                            attributes: keyValues(4),
                            droppedAttributesCount: { type: "uint32", id: 5 }
                          }
                        }
                      }
                    },
                    // Enums are read as numbers (int32): an unknown value is the receiver's to judge.
                    Status: { fields: { message: { type: "string", id: 2 }, code: { type: "int32", id: 3 } } }
                  }
                }
              }
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: {
                            resourceSpans: {
                              rule: "repeated",
                              type: "opentelemetry.proto.trace.v1.ResourceSpans",
                              id: 1
                            }
                          }
                        },
                        ExportTraceServiceResponse: {
                          fields: { partialSuccess: { type: "ExportTracePartialSuccess", id: 1 } }
                        },
                        ExportTracePartialSuccess: {
                          fields: { rejectedSpans: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    },
    google: {
      nested: {
        rpc: {
          nested: {
            // What OTLP/HTTP answers with a 4xx or 5xx (google.rpc.Status, without details).
            Status: { fields: { code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } } }
          }
        }
      }
    }
  }
}

const root = protobuf.Root.fromJSON(definitions)

export const ExportTraceServiceRequest = root.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"
)
export const ExportTraceServiceResponse = root.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse"
)
export const RpcStatus = root.lookupType("google.rpc.Status")

//! IRI constants mirroring `ontology/refgraph.ttl`; a test checks that every one is defined there.

/// Declares IRI constants in a namespace module plus `ALL`, the list the ontology test reads.
macro_rules! vocabulary {
    ($ns:literal; $($name:ident = $local:literal),* $(,)?) => {
        pub const NS: &str = $ns;
        $(pub const $name: oxigraph::model::NamedNodeRef<'static> =
            oxigraph::model::NamedNodeRef::new_unchecked(concat!($ns, $local));)*
        /// Every term of this namespace that the code uses.
        pub const ALL: &[&str] = &[$(concat!($ns, $local)),*];
    };
}

/// The refgraph ontology.
pub mod rg {
    vocabulary! { "https://refgraph.dev/ontology#";
        // classes
        PACKAGE = "Package",
        RELEASE = "Release",
        SYMBOL = "Symbol",
        MODULE = "Module",
        CLASS = "Class",
        FUNCTION = "Function",
        METHOD = "Method",
        CLASS_METHOD = "ClassMethod",
        STATIC_METHOD = "StaticMethod",
        PROPERTY = "Property",
        ATTRIBUTE = "Attribute",
        INTERFACE = "Interface",
        OPERATION = "Operation",
        SCHEMA = "Schema",
        PARAMETER = "Parameter",
        OVERLOAD = "Overload",
        DEPRECATION = "Deprecation",
        DIAGNOSTIC = "Diagnostic",
        DOC_PAGE = "DocPage",
        DOC_SECTION = "DocSection",
        RELATION = "Relation",
        // documentation pages
        IN_RELEASE = "inRelease",
        PAGE = "page",
        TITLE = "title",
        SOURCE_URL = "sourceUrl",
        SECTION_PATH = "sectionPath",
        TEXT = "text",
        CONTENT_TYPE = "contentType",
        ORDER = "order",
        LAST_UPDATED = "lastUpdated",
        MENTIONS = "mentions",
        MENTIONED_IN = "mentionedIn",
        // release and package
        PACKAGE_PROP = "package",
        ECOSYSTEM = "ecosystem",
        PACKAGE_NAME = "packageName",
        VERSION = "version",
        INGESTED_AT = "ingestedAt",
        FACTS_VERSION = "factsVersion",
        PAGES_ADDED_AT = "pagesAddedAt",
        SOURCE = "source",
        SHA256 = "sha256",
        SYMBOL_COUNT = "symbolCount",
        NAME_TABLE = "nameTable",
        DIAGNOSTIC_PROP = "diagnostic",
        // symbols
        QUALIFIED_NAME = "qualifiedName",
        ALIAS = "alias",
        REACHABLE_AS = "reachableAs",
        UNKNOWN_MEMBERS = "unknownMembers",
        MAYBE_BOUND = "maybeBound",
        GUARDED_BY = "guardedBy",
        RAISES_ON_USE = "raisesOnUse",
        TYPE_CHECKER_VIEW = "typeCheckerView",
        BOUND_NAMES = "boundNames",
        RUNTIME_BOUND = "runtimeBound",
        DEFINED_IN = "definedIn",
        PARENT = "parent",
        SIGNATURE = "signature",
        PARAMETER_PROP = "parameter",
        RETURNS = "returns",
        IS_ASYNC = "isAsync",
        DOCSTRING = "docstring",
        SUMMARY = "summary",
        DECORATOR = "decorator",
        BASE = "base",
        BASE_ORDER = "baseOrder",
        OVERLOAD_PROP = "overload",
        INHERITED_FROM = "inheritedFrom",
        PROVENANCE = "provenance",
        DEPRECATION_PROP = "deprecation",
        SOURCE_FILE = "sourceFile",
        LINE = "line",
        // parameters
        NAME = "name",
        POSITION = "position",
        PARAMETER_KIND = "parameterKind",
        ANNOTATION = "annotation",
        DEFAULT = "default",
        REQUIRED = "required",
        // deprecations and diagnostics
        SINCE = "since",
        MESSAGE = "message",
        REPLACEMENT = "replacement",
        SIGNAL = "signal",
        // OpenAPI
        REQUEST_BODY = "RequestBody",
        RESPONSE = "Response",
        BODY_PROPERTY = "BodyProperty",
        HTTP_METHOD = "httpMethod",
        HTTP_PATH = "httpPath",
        ENDPOINT_KEY = "endpointKey",
        OPERATION_ID = "operationId",
        TAG = "tag",
        SECURITY = "security",
        SECURITY_KEY = "securityKey",
        PRIVATE_NAMES = "privateNames",
        SERVER = "server",
        SUNSET = "sunset",
        SERVICE_TITLE = "serviceTitle",
        TAG_DESCRIPTION = "tagDescription",
        API_VERSION = "apiVersion",
        OPENAPI_VERSION = "openapiVersion",
        REQUEST_BODY_PROP = "requestBody",
        RESPONSE_PROP = "response",
        BODY_PROPERTY_PROP = "bodyProperty",
        MEDIA_TYPE = "mediaType",
        SCHEMA_TYPE = "schemaType",
        STATUS_CODE = "statusCode",
        DESCRIPTION = "description",
        HEADER = "header",
        STYLE = "style",
        EXPLODE = "explode",
        PARAMETER_DEPRECATED = "parameterDeprecated",
        FORMAT = "format",
        NULLABLE = "nullable",
        READ_ONLY = "readOnly",
        WRITE_ONLY = "writeOnly",
        ENUM_VALUE = "enumValue",
        CONSTRAINT = "constraint",
        RECURSIVE = "recursive",
        PROPERTY_REQUIRED = "propertyRequired",
        RELATION_PROP = "relation",
        RELATION_KIND = "relationKind",
        TARGET = "target",
        EVIDENCE = "evidence",
        REQUEST_KEY = "requestKey",
        RELATION_TABLE = "relationTable",
    }
}

/// The RDF namespace (only the terms refgraph writes).
pub mod rdf {
    vocabulary! { "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
        TYPE = "type",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_is_defined_in_the_ontology() {
        let ttl = include_str!("../ontology/refgraph.ttl");
        for iri in rg::ALL {
            let local = iri.strip_prefix(rg::NS).unwrap();
            assert!(
                ttl.contains(&format!("rg:{local} ")) || ttl.contains(&format!("rg:{local}\n")),
                "{iri} is used in code but not defined in ontology/refgraph.ttl"
            );
        }
    }
}

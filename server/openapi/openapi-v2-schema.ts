/**
 * The gnostic `openapi.v2` messages that kubectl and client-go read `/openapi/v2` with
 * (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`): names and field numbers as
 * github.com/google/gnostic-models `openapiv2/OpenAPIv2.proto` (v0.7.0) defines them, limited
 * to what a Document of this server holds (the OAuth2 security schemes are left out).
 * Kept as text so the compiled server needs no file beside its JavaScript. Two families of
 * messages, which gnostic generates from its JSON schema by one pattern each, are written once.
 */

/** The validation fields every primitive (non-body parameter, header, items) carries, numbered from `first`. */
function primitiveFields(first: number): string {
  return [
    'string type',
    'string format',
    'PrimitivesItems items',
    'string collection_format',
    'Any default',
    'double maximum',
    'bool exclusive_maximum',
    'double minimum',
    'bool exclusive_minimum',
    'int64 max_length',
    'int64 min_length',
    'string pattern',
    'int64 max_items',
    'int64 min_items',
    'bool unique_items',
    'repeated Any enum',
    'double multiple_of',
  ]
    .map((field, index) => `  ${field} = ${first + index};`)
    .join('\n');
}

const NAMED_VALUE_TYPES = [
  'Any',
  'Header',
  'Parameter',
  'PathItem',
  'Response',
  'ResponseValue',
  'Schema',
  'SecurityDefinitionsItem',
  'StringArray',
];

/** gnostic's maps: ordered lists of `NamedX` name-value pairs. */
function namedMessages(): string {
  return NAMED_VALUE_TYPES.map((type) => `message Named${type} {\n  string name = 1;\n  ${type} value = 2;\n}\n`).join(
    '\n',
  );
}

export const OPENAPI_V2_PROTO = `syntax = "proto3";
package openapi.v2;
import "google/protobuf/any.proto";

message AdditionalPropertiesItem {
  oneof oneof {
    Schema schema = 1;
    bool boolean = 2;
  }
}

message Any {
  google.protobuf.Any value = 1;
  string yaml = 2;
}

message ApiKeySecurity {
  string type = 1;
  string name = 2;
  string in = 3;
  string description = 4;
  repeated NamedAny vendor_extension = 5;
}

message BasicAuthenticationSecurity {
  string type = 1;
  string description = 2;
  repeated NamedAny vendor_extension = 3;
}

message BodyParameter {
  string description = 1;
  string name = 2;
  string in = 3;
  bool required = 4;
  Schema schema = 5;
  repeated NamedAny vendor_extension = 6;
}

message Contact {
  string name = 1;
  string url = 2;
  string email = 3;
  repeated NamedAny vendor_extension = 4;
}

message Definitions {
  repeated NamedSchema additional_properties = 1;
}

message Document {
  string swagger = 1;
  Info info = 2;
  string host = 3;
  string base_path = 4;
  repeated string schemes = 5;
  repeated string consumes = 6;
  repeated string produces = 7;
  Paths paths = 8;
  Definitions definitions = 9;
  ParameterDefinitions parameters = 10;
  ResponseDefinitions responses = 11;
  repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13;
  repeated Tag tags = 14;
  ExternalDocs external_docs = 15;
  repeated NamedAny vendor_extension = 16;
}

message Examples {
  repeated NamedAny additional_properties = 1;
}

message ExternalDocs {
  string description = 1;
  string url = 2;
  repeated NamedAny vendor_extension = 3;
}

message FileSchema {
  string format = 1;
  string title = 2;
  string description = 3;
  Any default = 4;
  repeated string required = 5;
  string type = 6;
  bool read_only = 7;
  ExternalDocs external_docs = 8;
  Any example = 9;
  repeated NamedAny vendor_extension = 10;
}

message FormDataParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  bool allow_empty_value = 5;
${primitiveFields(6)}
  repeated NamedAny vendor_extension = 23;
}

message Header {
${primitiveFields(1)}
  string description = 18;
  repeated NamedAny vendor_extension = 19;
}

message HeaderParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
${primitiveFields(5)}
  repeated NamedAny vendor_extension = 22;
}

message Headers {
  repeated NamedHeader additional_properties = 1;
}

message Info {
  string title = 1;
  string version = 2;
  string description = 3;
  string terms_of_service = 4;
  Contact contact = 5;
  License license = 6;
  repeated NamedAny vendor_extension = 7;
}

message ItemsItem {
  repeated Schema schema = 1;
}

message JsonReference {
  string _ref = 1;
  string description = 2;
}

message License {
  string name = 1;
  string url = 2;
  repeated NamedAny vendor_extension = 3;
}

${namedMessages()}
message NonBodyParameter {
  oneof oneof {
    HeaderParameterSubSchema header_parameter_sub_schema = 1;
    FormDataParameterSubSchema form_data_parameter_sub_schema = 2;
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}

message Operation {
  repeated string tags = 1;
  string summary = 2;
  string description = 3;
  ExternalDocs external_docs = 4;
  string operation_id = 5;
  repeated string produces = 6;
  repeated string consumes = 7;
  repeated ParametersItem parameters = 8;
  Responses responses = 9;
  repeated string schemes = 10;
  bool deprecated = 11;
  repeated SecurityRequirement security = 12;
  repeated NamedAny vendor_extension = 13;
}

message Parameter {
  oneof oneof {
    BodyParameter body_parameter = 1;
    NonBodyParameter non_body_parameter = 2;
  }
}

message ParameterDefinitions {
  repeated NamedParameter additional_properties = 1;
}

message ParametersItem {
  oneof oneof {
    Parameter parameter = 1;
    JsonReference json_reference = 2;
  }
}

message PathItem {
  string _ref = 1;
  Operation get = 2;
  Operation put = 3;
  Operation post = 4;
  Operation delete = 5;
  Operation options = 6;
  Operation head = 7;
  Operation patch = 8;
  repeated ParametersItem parameters = 9;
  repeated NamedAny vendor_extension = 10;
}

message PathParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
${primitiveFields(5)}
  repeated NamedAny vendor_extension = 22;
}

message Paths {
  repeated NamedAny vendor_extension = 1;
  repeated NamedPathItem path = 2;
}

message PrimitivesItems {
${primitiveFields(1)}
  repeated NamedAny vendor_extension = 18;
}

message Properties {
  repeated NamedSchema additional_properties = 1;
}

message QueryParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  bool allow_empty_value = 5;
${primitiveFields(6)}
  repeated NamedAny vendor_extension = 23;
}

message Response {
  string description = 1;
  SchemaItem schema = 2;
  Headers headers = 3;
  Examples examples = 4;
  repeated NamedAny vendor_extension = 5;
}

message ResponseDefinitions {
  repeated NamedResponse additional_properties = 1;
}

message ResponseValue {
  oneof oneof {
    Response response = 1;
    JsonReference json_reference = 2;
  }
}

message Responses {
  repeated NamedResponseValue response_code = 1;
  repeated NamedAny vendor_extension = 2;
}

message Schema {
  string _ref = 1;
  string format = 2;
  string title = 3;
  string description = 4;
  Any default = 5;
  double multiple_of = 6;
  double maximum = 7;
  bool exclusive_maximum = 8;
  double minimum = 9;
  bool exclusive_minimum = 10;
  int64 max_length = 11;
  int64 min_length = 12;
  string pattern = 13;
  int64 max_items = 14;
  int64 min_items = 15;
  bool unique_items = 16;
  int64 max_properties = 17;
  int64 min_properties = 18;
  repeated string required = 19;
  repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22;
  ItemsItem items = 23;
  repeated Schema all_of = 24;
  Properties properties = 25;
  string discriminator = 26;
  bool read_only = 27;
  Xml xml = 28;
  ExternalDocs external_docs = 29;
  Any example = 30;
  repeated NamedAny vendor_extension = 31;
}

message SchemaItem {
  oneof oneof {
    Schema schema = 1;
    FileSchema file_schema = 2;
  }
}

message SecurityDefinitions {
  repeated NamedSecurityDefinitionsItem additional_properties = 1;
}

message SecurityDefinitionsItem {
  oneof oneof {
    BasicAuthenticationSecurity basic_authentication_security = 1;
    ApiKeySecurity api_key_security = 2;
  }
}

message SecurityRequirement {
  repeated NamedStringArray additional_properties = 1;
}

message StringArray {
  repeated string value = 1;
}

message Tag {
  string name = 1;
  string description = 2;
  ExternalDocs external_docs = 3;
  repeated NamedAny vendor_extension = 4;
}

message TypeItem {
  repeated string value = 1;
}

message Xml {
  string name = 1;
  string namespace = 2;
  string prefix = 3;
  bool attribute = 4;
  bool wrapped = 5;
  repeated NamedAny vendor_extension = 6;
}
`;

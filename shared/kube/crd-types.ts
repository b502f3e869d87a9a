// Generated from crds/*.yaml by test/support/generate-crd-types.ts; do not edit.
// Run `npm run generate:crd-types` after changing a CRD.

/**
 * MetricSpec is the query and the extraction.
 */
export interface MetricSpec {
  /**
   * What the metric measures, for people.
   */
  description?: string;
  /**
   * Units of the value, for people (shown by describe).
   */
  units?: string;
  /**
   * The metrics provider, for people (for example prometheus).
   */
  provider?: string;
  /**
   * Counter or Gauge.
   */
  type?: 'Counter' | 'Gauge';
  /**
   * The provider's URL. May contain $field or ${field} placeholders, filled from the secret's data.
   */
  urlTemplate?: string;
  /**
   * The HTTP method.
   */
  method?: 'GET' | 'POST';
  /**
   * Query parameters, URL-encoded. Values may contain $name or ${name} placeholders: the version's variables, its name, and elapsedTime (whole seconds since the experiment started, at least 1). $$ is a literal $.
   */
  params?: {
    name: string;
    value: string;
  }[];
  /**
   * JSON text sent with POST as application/json. Placeholders as in params; after substitution it must parse as JSON.
   */
  body?: string;
  /**
   * Request headers. Values may contain $field or ${field} placeholders, filled from the secret's data (for example "Authorization: Bearer ${token}").
   */
  headerTemplates?: {
    name: string;
    value: string;
  }[];
  /**
   * Basic sends the secret's username and password as an Authorization header; APIKey and Bearer use the secret's fields through headerTemplates or urlTemplate. Unset means no authentication.
   */
  authType?: 'Basic' | 'APIKey' | 'Bearer';
  /**
   * The Secret that holds the credentials, as name (in the experiment's namespace) or namespace/name. Required when authType is set.
   */
  secret?: string;
  /**
   * jq (1.7) expression applied to the JSON reply; its first output must be a finite number.
   */
  jqExpression?: string;
  /**
   * Time allowed for one query, request and extraction together.
   */
  timeoutSeconds?: number;
  /**
   * No query: each listed version gets the given level as its value (for tutorials and tests).
   */
  mock?: {
    /**
     * The version's name.
     */
    name: string;
    /**
     * The value, as a number or a Kubernetes quantity string ("0.01", "500m").
     */
    level: unknown;
  }[];
}

/**
 * MetricStatus says whether the Metric can be used.
 */
export interface MetricStatus {
  /**
   * The metadata.generation that the conditions describe.
   */
  observedGeneration?: number;
  /**
   * Ready is True when the jq expression compiles, the templates parse, and auth and secret are consistent.
   *
   * @maxItems 8
   */
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
    observedGeneration?: number;
  }[];
}

// Generated from crds/*.yaml by test/support/generate-crd-types.ts; do not edit.
// Run `npm run generate:crd-types` after changing a CRD.

/**
 * ExperimentSpec is what to compare, how to judge, and how traffic moves.
 */
export interface ExperimentSpec {
  /**
   * What the experiment is about, usually namespace/name; experiments on the same target run one at a time, oldest first.
   */
  target: string;
  /**
   * The versions compared; the baseline is the current one.
   */
  versionInfo: {
    baseline: VersionDetail;
    candidates?: VersionDetail[];
  };
  strategy: {
    /**
     * Conformance (one version), Canary (two), A/B (two), A/B/n (more than two; A/B/N is accepted too).
     */
    testingPattern: 'Conformance' | 'Canary' | 'A/B' | 'A/B/n' | 'A/B/N';
    /**
     * Progressive shifts traffic toward the winner each iteration; FixedSplit leaves the routing objects as they are; BlueGreen keeps all traffic on the baseline until the end. Progressive and BlueGreen then promote the winner.
     */
    deploymentPattern?: 'Progressive' | 'FixedSplit' | 'BlueGreen';
    weights?: {
      /**
       * The most traffic a candidate gets before promotion, in percent.
       */
      maxCandidateWeight?: number;
      /**
       * The most a candidate's weight grows in one iteration, in percentage points.
       */
      maxCandidateWeightIncrement?: number;
    };
  };
  criteria?: {
    /**
     * Thresholds a version's metrics must meet for it to be feasible.
     */
    objectives?: {
      /**
       * A Metric, as namespace/name or a name in the experiment's namespace.
       */
      metric: string;
      /**
       * The largest value allowed, as a number or a quantity ("500m", "0.01").
       */
      upperLimit?: unknown;
      /**
       * The smallest value allowed, as a number or a quantity.
       */
      lowerLimit?: unknown;
    }[];
    /**
     * Metrics that rank feasible versions (A/B and A/B/n); the first decides, the next break ties.
     */
    rewards?: {
      metric: string;
      preferredDirection: 'High' | 'Low';
    }[];
    /**
     * A Metric fetched and shown, not judged.
     */
    requestCount?: string;
    /**
     * Metrics fetched and shown, not judged.
     */
    indicators?: string[];
  };
  duration?: {
    /**
     * Seconds between iterations.
     */
    intervalSeconds?: number;
    iterationsPerLoop?: number;
    maxLoops?: number;
  };
}
export interface VersionDetail {
  /**
   * The version's name, unique in the experiment.
   */
  name: string;
  /**
   * Values of the $name placeholders in the Metrics' params and body for this version.
   */
  variables?: {
    name: string;
    value: string;
  }[];
  /**
   * The field of a routing object (Knative Service, Istio VirtualService, KServe InferenceService, Seldon SeldonDeployment…) that holds this version's traffic percentage. One version may omit it: its weight is 100 minus the others.
   */
  weightObjRef?: {
    apiVersion: string;
    kind: string;
    /**
     * Defaults to the experiment's namespace.
     */
    namespace?: string;
    name: string;
    /**
     * For example .spec.traffic[1].percent
     */
    fieldPath: string;
  };
}

/**
 * ExperimentStatus is the run as it goes; lists and maps stay small.
 */
export interface ExperimentStatus {
  observedGeneration?: number;
  /**
   * @maxItems 8
   */
  conditions?: {
    /**
     * ExperimentCompleted, ExperimentFailed, TargetAcquired or TrafficApplied.
     */
    type: string;
    status: 'True' | 'False' | 'Unknown';
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
  }[];
  stage?: 'Waiting' | 'Initializing' | 'Running' | 'Completed' | 'Failed';
  initTime?: string;
  startTime?: string;
  lastUpdateTime?: string;
  /**
   * When the last iteration was counted (addition).
   */
  lastIterationTime?: string;
  completedIterations?: number;
  /**
   * Traffic per version, as read back from the routing objects.
   *
   * @maxItems 32
   */
  currentWeightDistribution?: VersionWeight[];
  versionRecommendedForPromotion?: string;
  message?: string;
  analysis?: {
    aggregatedMetrics?: {
      timestamp?: string;
      /**
       * Per metric, per version, the value or why there is none.
       */
      data?: {
        [k: string]:
          | {
              data?: {
                [k: string]:
                  | {
                      value?: number;
                      /**
                       * Why the metric has no value for the version (addition).
                       */
                      unavailable?: string;
                      /**
                       * When the value was read (addition).
                       */
                      at?: string;
                    }
                  | undefined;
              };
            }
          | undefined;
      };
    };
    versionAssessments?: {
      timestamp?: string;
      /**
       * What each entry of a version's list checks, in order (addition).
       */
      objectives?: string[];
      /**
       * Per version, whether each objective holds.
       */
      data?: {
        [k: string]: boolean[] | undefined;
      };
    };
    winnerAssessment?: {
      timestamp?: string;
      data?: {
        winnerFound?: boolean;
        winner?: string;
        bestVersions?: string[];
      };
    };
    weights?: {
      timestamp?: string;
      /**
       * The weights this iteration set (or would set, for FixedSplit and BlueGreen).
       */
      data?: VersionWeight[];
    };
  };
  /**
   * The weights after each of the last iterations (addition).
   *
   * @maxItems 10
   */
  weightHistory?: {
    iteration: number;
    weights: VersionWeight[];
  }[];
  /**
   * What promote did at the end (addition).
   */
  promotion?: {
    version?: string;
    time?: string;
    outcome?: 'Promoted' | 'NotPromoted' | 'Failed';
    message?: string;
  };
  /**
   * The spec and the Metrics as they were when the run started; the run measures these, whatever changes later (addition).
   */
  runSpec?: Record<string, unknown>;
}
export interface VersionWeight {
  name: string;
  value: number;
}

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

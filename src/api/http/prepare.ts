/**
 * A request checked once, where it is built: against its endpoint's schema,
 * with its path, query and body ready to send. Nodes prepare a call to name
 * the fields as their user gave them, then hand it to the client.
 */
import { ENDPOINTS, pathFor, pathParamsOf, queryFor, type Endpoint, type RobotOperationName } from "../cloud/endpoints";
import { RobotApiError, describeIssues, invalidInput, type IssueWording } from "../errors";
import { BASE_URL_RULES, brokenUrlRule, parseUrl } from "../settings/input-rules";

/** A request checked against its endpoint's schema, with its path and body ready to send. */
export interface PreparedCall<Op extends RobotOperationName = RobotOperationName> {
  readonly operation: Op;
  readonly endpoint: Endpoint;
  /** The request as checked, what the path, query and body were made from (read by the client without parsing the body again). */
  readonly request: unknown;
  /** The robot the request is for (undefined for the token grant). */
  readonly serialNumber: string | undefined;
  /** Path with its parameters encoded, and the query string ("" or "?..."): the request target. */
  readonly path: string;
  readonly query: string;
  readonly body: string | undefined;
  readonly urgent: boolean;
}

/** Checks and normalises a base URL: http(s) only, no query or fragment, no trailing slash. */
export function normaliseBaseUrl(raw: string): string {
  // Callers from plain JavaScript (function nodes) may pass anything.
  if (typeof raw !== "string") throw invalidInput("baseUrl", "must be a string");
  const url = parseUrl(raw.trim());
  // The text is not repeated: a malformed URL may still hold a user name and password.
  if (!url) throw invalidInput("baseUrl", "is not a URL");
  const broken = brokenUrlRule(url, BASE_URL_RULES);
  if (broken === "protocol") throw invalidInput("baseUrl", `only http and https are accepted, not ${url.protocol}`);
  if (broken === "parts") throw invalidInput("baseUrl", "must not hold credentials, a query or a fragment");
  return url.href.replace(/\/+$/, "");
}

/**
 * Checks a request once, where it is built: the one validation of the call.
 * `wording` lets a caller name the fields as its user gave them.
 */
export function prepareCall<Op extends RobotOperationName>(operation: Op, input: unknown, wording?: IssueWording): PreparedCall<Op> {
  const endpoint = ENDPOINTS[operation] as unknown as Endpoint;
  const parsed = endpoint.request.safeParse(input);
  if (!parsed.success) {
    const described = describeIssues(parsed.error, wording);
    throw new RobotApiError({
      kind: "invalid_input",
      field: described.field,
      operation,
      message: described.message,
      wording: described.wording,
    });
  }
  return preparedFrom(operation, endpoint, parsed.data);
}

function preparedFrom<Op extends RobotOperationName>(operation: Op, endpoint: Endpoint, request: unknown): PreparedCall<Op> {
  const serialNumber = endpoint.serialNumberOf?.(request);
  const fields = request as Record<string, unknown>;
  // Path parameters are strings the request schema checked (SerialNumber, CommandId).
  const params: Record<string, string | undefined> = {};
  for (const name of pathParamsOf(endpoint.path)) params[name] = typeof fields[name] === "string" ? fields[name] : undefined;
  const query = queryFor(endpoint, request);
  return {
    operation,
    endpoint,
    request,
    serialNumber,
    path: pathFor(endpoint, params),
    query: query === "" ? "" : `?${query}`,
    // Also on a GET when the table says so (the S-line batch status): the transport writes it with its Content-Length.
    body: endpoint.sendsBody ? JSON.stringify(request) : undefined,
    urgent: endpoint.urgent?.(request) ?? false,
  };
}

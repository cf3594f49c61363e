/** Refusals in the cloud's terms: a code (the client's own numbering), a message naming the field, an HTTP status. */
import { API_CODES, PLATFORM_CODES } from "../../api/errors";

/** Status codes of the cloud's error bodies: the client's own table, so both name a code alike. */
export const Code = API_CODES;

const HTTP_STATUS_OF_CODE: Readonly<Record<number, number>> = {
  3: 400,
  5: 404,
  7: 403,
  8: 429,
  9: 400,
  12: 405,
  13: 500,
  16: 401,
  // No recorded answer gives 230003's HTTP status: it comes as the cloud's error body under 200, which is an
  // error by its code (docs/cloud-api.md, Errors); the client reads it alike under an HTTP error.
  [PLATFORM_CODES.ROBOT_UNREACHABLE.code]: 200,
};

export interface SimErrorOptions {
  /** Default: the usual HTTP status of the code. */
  httpStatus?: number;
  /** Extra answer headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /**
   * Answered as an HTTP status even on the envelope endpoints: refusals that
   * happen before the request reaches the service (401, 405, 413, 415).
   */
  transport?: boolean;
}

/** A refusal in the cloud's terms: a code and a message that names the field when there is one. */
export class SimError extends Error {
  readonly httpStatus: number;
  readonly headers: Record<string, string> | undefined;
  readonly transport: boolean;
  constructor(
    readonly code: number,
    message: string,
    options: SimErrorOptions = {},
  ) {
    super(message);
    this.httpStatus = options.httpStatus ?? HTTP_STATUS_OF_CODE[code] ?? 400;
    this.headers = options.headers;
    this.transport = options.transport ?? false;
  }
}

/** 230003 for a robot the cloud cannot reach (robot field notes, turn 6: it fails a whole batch naming the robot). */
export function unreachable(serialNumber: string): SimError {
  return new SimError(PLATFORM_CODES.ROBOT_UNREACHABLE.code, `Robot ${serialNumber} cannot be reached.`);
}

/** Code 3 naming the field: what the cloud answers a value it cannot use. */
export function invalid(field: string, problem: string): SimError {
  return new SimError(Code.INVALID_ARGUMENT, `${field}: ${problem}`);
}

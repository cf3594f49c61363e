/** robot-maps' table: its operations. */

/** The node's operations; each is the client method (and endpoint row) it calls. */
export const MAP_OPERATIONS = ["listMaps", "getSubareas", "mapImage", "fleetMap", "fleetView"] as const;
export type MapOperation = (typeof MAP_OPERATIONS)[number];

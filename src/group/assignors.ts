import type { Assignor, AssignorName } from "./assignor.ts";
import { rangeAssignor } from "./range-assignor.ts";
import { uniformAssignor } from "./uniform-assignor.ts";

/**
 * The server-side assignors by name. Apart from the contract they honour (assignor.ts), which
 * each of them imports: the contract knows no assignor.
 */
export const assignors: Readonly<Record<AssignorName, Assignor>> = {
  uniform: uniformAssignor,
  range: rangeAssignor,
};

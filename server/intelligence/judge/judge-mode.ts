import { getModel } from "../../ai";
import type { TJudgeMode } from "../definition";

/** This server's mode, as the hot loop will judge (refresh-tracker.ts takes the same getModel("judge")). */
export function currentJudgeMode(): TJudgeMode {
  return getModel("judge") ? "agent" : "rules";
}

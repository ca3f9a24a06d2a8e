import { bindCapabilityTool } from "./bind-capability";
import type { TDrafterTurn } from "./drafter-turn";
import { fetchSampleTool } from "./fetch-sample";
import { lockDefinitionTool } from "./lock-definition";
import { saveDefinitionTool } from "./save-definition";

export type { TDrafterTurn } from "./drafter-turn";

/** The drafter agent's tools, one file each, sharing the turn's state. */
export function drafterTools(turn: TDrafterTurn) {
  return {
    bindCapability: bindCapabilityTool(turn),
    fetchSample: fetchSampleTool(turn),
    proposeDefinition: saveDefinitionTool(
      turn,
      "Propose the first complete draft definition (validated and saved as the draft).",
    ),
    reviseDefinition: saveDefinitionTool(
      turn,
      "Replace the draft with a complete revised definition after the person asked for changes.",
    ),
    lockDefinition: lockDefinitionTool(turn),
  };
}

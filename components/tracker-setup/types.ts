/** The setup chat's shared types (type-only imports from the server: nothing server-side reaches the bundle). */
export type {
  TDraftView,
  TSetupDataTypes,
  TSetupMessageKind,
  TSetupUIMessage,
} from "@/contracts/setup-ui-message";

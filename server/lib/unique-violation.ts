/** A unique-constraint violation: Prisma's P2002, or PostgreSQL's 23505 when it surfaces through the driver adapter unmapped. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "P2002" || e?.code === "23505" || e?.cause?.code === "23505";
}

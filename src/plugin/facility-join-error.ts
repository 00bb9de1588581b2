/** Why the desk could not join its facility: `short` is what its keys say (NO KEY), `message` names the file and what is wrong (the log). */
export class FacilityJoinError extends Error {
  override readonly name = 'FacilityJoinError';
  constructor(
    readonly short: string,
    message: string,
  ) {
    super(message);
  }
}

package storage

import "helm.sh/helm/v3/pkg/release"

// SummaryOf returns the summary of a decoded release. Sizes are left zero.
func SummaryOf(rls *release.Release) Summary {
	var s Summary
	if rls == nil {
		return s
	}
	s.Namespace = rls.Namespace
	if rls.Chart != nil && rls.Chart.Metadata != nil {
		s.Chart = rls.Chart.Metadata.Name
		s.ChartVersion = rls.Chart.Metadata.Version
		s.AppVersion = rls.Chart.Metadata.AppVersion
	}
	if rls.Info != nil {
		s.Description = rls.Info.Description
		s.LastDeployed = rls.Info.LastDeployed.Time
	}
	return s
}
